// A read-mostly cache of computed values, the kind of component an SDK
// upgrade swaps underneath its users. Version 1 guards a Dictionary with
// one lock; version 2 (CACHE_V2) uses a ConcurrentDictionary, so that
// readers on several threads no longer queue behind each other.
using System;
using System.Collections.Generic;
#if CACHE_V2
using System.Collections.Concurrent;
#endif

namespace Example.Cache;

public sealed class LookupCache<TKey, TValue> where TKey : notnull
{
    private readonly Func<TKey, TValue> compute;
#if CACHE_V2
    private readonly ConcurrentDictionary<TKey, TValue> map = new();
#else
    private readonly Dictionary<TKey, TValue> map = new();
    private readonly object gate = new();
#endif

    public LookupCache(Func<TKey, TValue> compute) => this.compute = compute;

    public static int Version =>
#if CACHE_V2
        2;
#else
        1;
#endif

    public int Count
    {
        get
        {
#if CACHE_V2
            return map.Count;
#else
            lock (gate)
                return map.Count;
#endif
        }
    }

    public TValue Get(TKey key)
    {
#if CACHE_V2
        return map.GetOrAdd(key, compute);
#else
        lock (gate)
        {
            if (!map.TryGetValue(key, out var value))
            {
                value = compute(key);
                map[key] = value;
            }
            return value;
        }
#endif
    }

    public bool Remove(TKey key)
    {
#if CACHE_V2
        return map.TryRemove(key, out _);
#else
        lock (gate)
            return map.Remove(key);
#endif
    }
}
