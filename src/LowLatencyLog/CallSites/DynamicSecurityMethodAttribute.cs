namespace System.Security;

/// <summary>
/// Marks a method whose frame must stay on the stack. The compiler turns it into the method's <c>RequireSecObject</c>
/// flag, and the JIT then inlines no caller of the method into its own caller and makes no tail call to it (the
/// runtime's rule for methods that look for their caller); the runtime's own attribute is not public.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
internal sealed class DynamicSecurityMethodAttribute : Attribute
{
}
