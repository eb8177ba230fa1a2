// abev's startup hook: the runtime's own figures of one .NET process, written
// at its exit into the run directory abev gives it (ABEV_RUN_DIR), as
// dotnet-<pid>.json (schema abev.dotnet-runtime/1, evidence-schema/
// dotnet-runtime.schema.json). abev adds this assembly to DOTNET_STARTUP_HOOKS
// for the runs of a plan that sets "dotnet_runtime"; the tests under it are
// not touched.
//
// It never throws out of the hook or its handlers: a figure it cannot take,
// or a directory it cannot write, leaves the process as it would have been
// without the hook. Without ABEV_RUN_DIR it does nothing. It does not decide
// what the figures mean (abev's results/dotnet_runtime.c does).
using System;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;

internal static class StartupHook
{
    private static string? dir;
    private static long peakHeap;
    private static int written;

    public static void Initialize()
    {
        try
        {
            dir = Environment.GetEnvironmentVariable("ABEV_RUN_DIR");
            if (string.IsNullOrEmpty(dir) || !Path.IsPathRooted(dir))
                return;
            AppDomain.CurrentDomain.ProcessExit += (_, _) => Write();
            GcWatch.Start();
        }
        catch
        {
        }
    }

    // The heap just before the last GC: what the managed heap had grown to.
    internal static void SampleHeap()
    {
        try
        {
            GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Any);
            long before = 0;
            foreach (GCGenerationInfo g in info.GenerationInfo)
                before += g.SizeBeforeBytes;
            Raise(before);
            Raise(info.HeapSizeBytes);
        }
        catch
        {
        }
    }

    private static void Raise(long v)
    {
        long seen = Interlocked.Read(ref peakHeap);
        while (v > seen)
        {
            long was = Interlocked.CompareExchange(ref peakHeap, v, seen);
            if (was == seen)
                return;
            seen = was;
        }
    }

    private static string ProcessName()
    {
        string? name = null;
        try
        {
            name = Assembly.GetEntryAssembly()?.GetName().Name;
        }
        catch
        {
        }
        if (string.IsNullOrEmpty(name))
            name = "unknown";
        // abev takes names of printable ASCII, at most 128 characters.
        var sb = new StringBuilder();
        foreach (char c in name)
        {
            if (sb.Length == 128)
                break;
            sb.Append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '_');
        }
        return sb.ToString();
    }

    private static string Figures()
    {
        SampleHeap();
        Raise(GC.GetTotalMemory(false));
        var inv = CultureInfo.InvariantCulture;
        var sb = new StringBuilder(512);
        sb.Append("{\"schema\": \"abev.dotnet-runtime/1\"");
        sb.Append(", \"pid\": ").Append(Environment.ProcessId.ToString(inv));
        sb.Append(", \"process\": \"").Append(ProcessName()).Append('"');
        sb.Append(", \"gc_gen0\": ").Append(GC.CollectionCount(0).ToString(inv));
        sb.Append(", \"gc_gen1\": ").Append(GC.CollectionCount(1).ToString(inv));
        sb.Append(", \"gc_gen2\": ").Append(GC.CollectionCount(2).ToString(inv));
        sb.Append(", \"gc_pause_us\": ").Append((GC.GetTotalPauseDuration().Ticks / 10).ToString(inv));
        sb.Append(", \"allocated_bytes\": ").Append(GC.GetTotalAllocatedBytes(true).ToString(inv));
        sb.Append(", \"peak_heap_bytes\": ").Append(Interlocked.Read(ref peakHeap).ToString(inv));
        sb.Append(", \"lock_contentions\": ").Append(Monitor.LockContentionCount.ToString(inv));
        sb.Append(", \"threadpool_items\": ").Append(ThreadPool.CompletedWorkItemCount.ToString(inv));
        sb.Append(", \"jit_methods\": ").Append(JitInfo.GetCompiledMethodCount(false).ToString(inv));
        sb.Append(", \"jit_time_us\": ").Append((JitInfo.GetCompilationTime(false).Ticks / 10).ToString(inv));
        sb.Append("}\n");
        return sb.ToString();
    }

    // Once per process, to a temporary name first: abev never reads half a file.
    private static void Write()
    {
        if (Interlocked.Exchange(ref written, 1) != 0 || dir == null)
            return;
        string? tmp = null;
        try
        {
            string pid = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
            string path = Path.Combine(dir, "dotnet-" + pid + ".json");
            tmp = Path.Combine(dir, ".dotnet-" + pid + ".json.tmp");
            File.WriteAllText(tmp, Figures(), new UTF8Encoding(false));
            File.Move(tmp, path, true);
            tmp = null;
        }
        catch
        {
        }
        finally
        {
            try
            {
                if (tmp != null)
                    File.Delete(tmp);
            }
            catch
            {
            }
        }
    }
}

// A callback after garbage collections, without an EventListener: an object
// nobody holds is finalized after the GC that found it dead, and its
// finalizer samples the heap and leaves a new one behind. Samples may skip
// GCs that follow each other faster than the finalizer thread runs.
internal sealed class GcWatch
{
    private static int stopped;

    internal static void Start() => _ = new GcWatch();

    ~GcWatch()
    {
        if (Volatile.Read(ref stopped) != 0 || Environment.HasShutdownStarted)
            return;
        StartupHook.SampleHeap();
        try
        {
            _ = new GcWatch();
        }
        catch
        {
            Volatile.Write(ref stopped, 1);
        }
    }
}
