// Four facts that pass unless their environment variable says otherwise.
using System;
using System.Threading;
using Xunit;

public class CrashTests
{
    private static bool On(string name) => Environment.GetEnvironmentVariable(name) == "1";

    [Fact]
    public void A_Passes() => Assert.True(true);

    [Fact]
    public void B_CrashesTheHost()
    {
        if (On("CRASH"))
            Environment.FailFast("the test host is brought down on purpose");
    }

    [Fact]
    public void C_Hangs()
    {
        if (On("HANG"))
            Thread.Sleep(TimeSpan.FromMinutes(10));
    }

    [Fact]
    public void D_Fails() => Assert.Equal(1, On("FAIL") ? 2 : 1);
}
