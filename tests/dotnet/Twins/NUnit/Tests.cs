// The NUnit twin: see ../README.md.
using System;
using NUnit.Framework;

namespace Twins;

public class YamlTests
{
    [Test]
    public void RoundTrip() => Assert.That("a: " + 1, Is.EqualTo("a: 1"));

    [Test]
    public void Parse() => Assert.That(int.Parse("42"), Is.EqualTo(42));
}

public class OtherTests
{
    private static bool On(string name) => Environment.GetEnvironmentVariable(name) == "1";

#if !DROP_ONE
    [Test]
    public void RoundTrip() => Assert.That(1 + 1, Is.EqualTo(2));
#endif

    [Test]
    public void Fails()
    {
        if (On("TWINS_FAIL"))
            Assert.Fail("expected 1, got 2");
    }

    [Test]
    public void Crashes()
    {
        if (On("TWINS_CRASH"))
            Environment.FailFast("the test host is brought down on purpose");
    }
}
