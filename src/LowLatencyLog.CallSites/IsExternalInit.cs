namespace System.Runtime.CompilerServices;

/// <summary>Lets netstandard2.0 compile records.</summary>
internal static class IsExternalInit
{
}
