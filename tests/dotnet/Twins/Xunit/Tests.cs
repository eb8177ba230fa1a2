// The xUnit twin: see ../README.md.
using System;
using Xunit;

namespace Twins;

public class YamlTests
{
    [Fact]
    public void RoundTrip() => Assert.Equal("a: 1", "a: " + 1);

    [Fact]
    public void Parse() => Assert.True(int.Parse("42") == 42);
}

public class OtherTests
{
    private static bool On(string name) => Environment.GetEnvironmentVariable(name) == "1";

#if !DROP_ONE
    [Fact]
    public void RoundTrip() => Assert.Equal(2, 1 + 1);
#endif

    [Fact]
    public void Fails()
    {
        if (On("TWINS_FAIL"))
            Assert.Fail("expected 1, got 2");
    }

    [Fact]
    public void Crashes()
    {
        if (On("TWINS_CRASH"))
            Environment.FailFast("the test host is brought down on purpose");
    }
}
