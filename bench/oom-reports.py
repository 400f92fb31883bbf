#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every OOM report in the raw logs of make bench runs.

    python3 bench/oom-reports.py [--reclaim] bench/results/X/raw ...

For each report in RAW/*.console: the allocation (order, gfp), the call
chain, the memcg's usage and swap use, memory.stat at the kill, what was
killed, and the workload it hit. The workload comes from the order of
the memcg_oom_kill lines in the matching .out; a global OOM (no memcg
usage line) is not one of those and is listed as such. --reclaim prints,
instead, the memcg's reclaim counters at each kill, one line a report.
"""
import glob
import os
import re
import sys

# frames every report has: left out of the call chain
SKIP = {'dump_stack_lvl', 'dump_header', 'oom_kill_process', 'out_of_memory',
        'mem_cgroup_out_of_memory', 'entry_SYSCALL_64_after_hwframe',
        'do_syscall_64', 'asm_exc_page_fault', 'handle_mm_fault'}
RECLAIM = ['pgrefill', 'pgdeactivate', 'pgactivate', 'pgscan', 'pgsteal',
           'pgscan_khugepaged', 'pgsteal_khugepaged', 'pgmajfault',
           'workingset_refault_anon', 'workingset_activate_anon',
           'swpout_zero', 'thp_swpout', 'thp_fault_alloc', 'thp_collapse_alloc',
           'slab_unreclaimable', 'pagetables']
START = re.compile(r'\[\s*([\d.]+)\] (\S+) invoked oom-killer: gfp_mask=(\S+), order=(\d+)')
FRAME = re.compile(r'\[\s*[\d.]+\]\s+(\?\s+)?([A-Za-z_0-9.]+)\+0x')
USAGE = re.compile(r'\] memory: usage (\d+)kB, limit (\d+)kB')
SWAP = re.compile(r'\] swap: usage (\d+)kB, limit (\d+)kB')
STAT = re.compile(r'\[\s*[\d.]+\] (\w+) (\d+)$')
KILLED = re.compile(r'Killed process (\d+) \((\S+)\).*anon-rss:(\d+)kB')


def report(lines, i, cfg, run):
    """The report starting at lines[i]; returns it and the next index."""
    m = START.search(lines[i])
    r = dict(cfg=cfg, run=run, t=m.group(1), comm=m.group(2), gfp=m.group(3),
             order=m.group(4), frames=[], st={})
    j = i + 1
    while j < len(lines) and 'Killed process' not in lines[j] and \
            'invoked oom-killer' not in lines[j]:
        s = lines[j]
        m = FRAME.match(s)
        if m and not m.group(1) and m.group(2) not in SKIP:
            r['frames'].append(m.group(2))
        m = USAGE.search(s)
        if m:
            r['use'], r['lim'] = m.group(1), m.group(2)
        m = SWAP.search(s)
        if m:
            r['swp'] = m.group(1)
        m = STAT.match(s)
        if m:
            r['st'][m.group(1)] = int(m.group(2))
        j += 1
    if j < len(lines) and 'Killed process' in lines[j]:
        m = KILLED.search(lines[j])
        r['killed'] = f'{m.group(2)}:{m.group(3)}'
    return r, j


def parse(raw):
    rows = []
    for con in sorted(glob.glob(os.path.join(raw, '*.console'))):
        cfg, run = os.path.basename(con)[:-len('.console')].rsplit('.r', 1)
        with open(con[:-len('.console')] + '.out', errors='replace') as f:
            seq = [m.group(1) for m in re.finditer(
                r'^BENCH \S+ (\S+) \S+ memcg_oom_kill (\d+)', f.read(), re.M)
                for _ in range(int(m.group(2)))]
        with open(con, errors='replace') as f:
            lines = f.read().splitlines()
        i = k = 0
        while i < len(lines):
            if not START.search(lines[i]):
                i += 1
                continue
            r, i = report(lines, i, cfg, run)
            if 'use' in r:
                r['wl'] = seq[k] if k < len(seq) else '?'
                k += 1
            else:
                r['wl'] = '(global OOM)'
            rows.append(r)
        if k != len(seq):
            print('MISMATCH', con, k, len(seq), file=sys.stderr)
    return rows


def mib(b):
    return '%.1f' % (b / 1048576)


def main():
    args = sys.argv[1:]
    reclaim = '--reclaim' in args
    for raw in (a for a in args if a != '--reclaim'):
        session = raw.rstrip('/').split('/')[-2]
        if not reclaim:
            print('##', raw)
        for r in parse(raw):
            s = r['st']
            if reclaim:
                print(session, r['cfg'], r['run'], r['wl'],
                      *(f"{k}={s.get(k, '-')}" for k in RECLAIM))
                continue
            print(f"{r['cfg']:15} r{r['run']} {r['wl']:16} t={r['t']:>8} {r['comm']:13} "
                  f"o={r['order']} {r['gfp']:10} use={r.get('use')}/{r.get('lim')} "
                  f"swp={r.get('swp')} anon={mib(s.get('anon', 0))} "
                  f"thp={mib(s.get('anon_thp', 0))} swc={mib(s.get('swapcached', 0))} "
                  f"ina={mib(s.get('inactive_anon', 0))} act={mib(s.get('active_anon', 0))} "
                  f"file={mib(s.get('file', 0))} inpl={mib(s.get('pmswap_inplace', 0))} "
                  f"krn={mib(s.get('kernel', 0))} killed={r.get('killed')}")
            print('     ', ' < '.join(r['frames'][:8]))


if __name__ == '__main__':
    main()
