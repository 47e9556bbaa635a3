using System;
using System.Collections.Generic;
using LowLatencyLog.Configuration;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Configuration;

public sealed class SettingReaderTests
{
    private readonly List<string> _errors = new List<string>();

    public enum Overflow
    {
        Block,
        Discard,
        Grow,
    }

    [Flags]
    public enum Captured
    {
        None = 0,
        Message = 4,
        ThreadName = 8,
        Exception = 256,
        Properties = 512,
        Partial = Message | ThreadName | Exception,
    }

    [SetUp]
    public void Clear() => _errors.Clear();

    [TestCase("65536", 65536)]
    [TestCase(" 42 ", 42)]
    [TestCase("1", 1)]
    [TestCase("+7", 7)]
    public void Integer_GoodValues(string text, int expected)
    {
        Assert.That(SettingReader.Integer("bufferSize", text, 65536, 1, 1 << 30, _errors.Add), Is.EqualTo(expected));
        Assert.That(_errors, Is.Empty);
    }

    [TestCase("")]
    [TestCase("   ")]
    [TestCase("abc")]
    [TestCase("0")]
    [TestCase("-5")]
    [TestCase("99999999999999999999")]
    [TestCase("1e3")]
    [TestCase("12.5")]
    [TestCase("٤٢")]
    [TestCase("<bufferSize value=\"1\"/>")]
    public void Integer_BadValues_ReportSettingValueAcceptedAndDefault(string text)
    {
        int value = SettingReader.Integer("bufferSize", text, 65536, 1, 1 << 30, _errors.Add);
        Assert.That(value, Is.EqualTo(65536));
        Assert.That(_errors, Has.Count.EqualTo(1));
        Assert.That(_errors[0], Does.Contain("'bufferSize'").And.Contain($"\"{text}\"").And.Contain("from 1 to 1073741824").And.Contain("default, 65536"));
    }

    [Test]
    public void Integer_PowerOfTwo()
    {
        Assert.That(SettingReader.Integer("bufferSize", "1024", 4096, 1, 1 << 30, _errors.Add, powerOfTwo: true), Is.EqualTo(1024));
        Assert.That(SettingReader.Integer("bufferSize", "1000", 4096, 1, 1 << 30, _errors.Add, powerOfTwo: true), Is.EqualTo(4096));
        Assert.That(_errors, Has.Count.EqualTo(1));
        Assert.That(_errors[0], Does.Contain("power of two"));
    }

    [Test]
    public void NotGiven_TakesTheDefaultSilently()
    {
        Assert.That(SettingReader.Integer("shutdownTimeout", null, 5000, 0, int.MaxValue, _errors.Add), Is.EqualTo(5000));
        Assert.That(SettingReader.Name("overflow", null, Overflow.Block, _errors.Add), Is.EqualTo(Overflow.Block));
        Assert.That(SettingReader.Flags("fix", null, Captured.Partial, _errors.Add), Is.EqualTo(Captured.Partial));
        Assert.That(_errors, Is.Empty);
    }

    [TestCase("Discard", Overflow.Discard)]
    [TestCase("discard", Overflow.Discard)]
    [TestCase(" GROW ", Overflow.Grow)]
    public void Name_GoodValues(string text, Overflow expected)
    {
        Assert.That(SettingReader.Name("overflow", text, Overflow.Block, _errors.Add), Is.EqualTo(expected));
        Assert.That(_errors, Is.Empty);
    }

    [TestCase("Drop")]
    [TestCase("1")]
    [TestCase("Block,Discard")]
    [TestCase("")]
    public void Name_BadValues_ListTheAcceptedNames(string text)
    {
        Assert.That(SettingReader.Name("overflow", text, Overflow.Block, _errors.Add), Is.EqualTo(Overflow.Block));
        Assert.That(_errors, Has.Count.EqualTo(1));
        Assert.That(_errors[0], Does.Contain("'overflow'").And.Contain("one of Block, Discard, Grow").And.Contain("default, Block"));
    }

    [TestCase("1", Overflow.Discard)]
    [TestCase(" 2 ", Overflow.Grow)]
    [TestCase("+0", Overflow.Block)]
    [TestCase("grow", Overflow.Grow)]
    public void NameOrNumber_TakesTheNumberOfADefinedMember_AsEnumParse(string text, Overflow expected)
    {
        Assert.That(SettingReader.NameOrNumber("overflow", text, Overflow.Block, _errors.Add), Is.EqualTo(expected));
        Assert.That(_errors, Is.Empty);
    }

    [TestCase("3")]
    [TestCase("-1")]
    [TestCase("1.0")]
    [TestCase("Block,Discard")]
    [TestCase("")]
    public void NameOrNumber_UndefinedNumbersAndOtherText_ListNamesAndNumbers(string text)
    {
        Assert.That(SettingReader.NameOrNumber("overflow", text, Overflow.Block, _errors.Add), Is.EqualTo(Overflow.Block));
        Assert.That(_errors, Has.Count.EqualTo(1));
        Assert.That(_errors[0], Does.Contain("'overflow'").And.Contain("one of Block, Discard, Grow, or the number of one (0, 1, 2)").And.Contain("default, Block"));
    }

    [Test]
    public void Name_ExcludedValues_AreRejectedAndNotListed()
    {
        // e.g. Grow on the Disruptor appender
        Assert.That(SettingReader.Name("overflow", "Grow", Overflow.Block, _errors.Add, Overflow.Grow), Is.EqualTo(Overflow.Block));
        Assert.That(_errors[0], Does.Contain("one of Block, Discard."));
        Assert.That(_errors[0].Contains("Grow,", StringComparison.Ordinal), Is.False, _errors[0]); // ordinal: Thai ignores the comma
    }

    [TestCase("ThreadName, Exception", Captured.ThreadName | Captured.Exception)]
    [TestCase("threadname|exception", Captured.ThreadName | Captured.Exception)]
    [TestCase("268", Captured.Message | Captured.ThreadName | Captured.Exception)]
    [TestCase("None", Captured.None)]
    [TestCase("Partial, Properties", Captured.Partial | Captured.Properties)]
    public void Flags_GoodValues(string text, Captured expected)
    {
        Assert.That(SettingReader.Flags("fix", text, Captured.Partial, _errors.Add), Is.EqualTo(expected));
        Assert.That(_errors, Is.Empty);
    }

    [TestCase("ThreadName, Exeption", "\"Exeption\" is not a flag")]
    [TestCase("ThreadName,,Exception", "\"\" is not a flag")]
    [TestCase("3", "names from")]
    [TestCase("-1", "names from")]
    [TestCase("", "names from")]
    [TestCase("All the things", "names from")]
    public void Flags_BadValues_NameTheCulprit(string text, string detail)
    {
        Assert.That(SettingReader.Flags("fix", text, Captured.Partial, _errors.Add), Is.EqualTo(Captured.Partial));
        Assert.That(_errors, Has.Count.EqualTo(1));
        Assert.That(_errors[0], Does.Contain("'fix'").And.Contain(detail).And.Contain("default, Partial"));
    }

    [Test]
    public void AHugeValue_IsShortenedInTheMessage()
    {
        string huge = new string('9', 1_000_000);
        SettingReader.Integer("bufferSize", huge, 65536, 1, 1 << 30, _errors.Add);
        Assert.That(_errors[0].Length, Is.LessThan(500));
    }
}
