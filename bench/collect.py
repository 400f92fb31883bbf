#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""collect.py OUTDIR: turn OUTDIR/raw/*.out (BENCH lines from the guest's
bench.sh) into OUTDIR/results.md (medians, min-max, ratios to stock swap
on pmem), OUTDIR/data/*.dat and, when gnuplot is installed, OUTDIR/*.png.
"""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

CONFIGS = ['stock-pmem', 'stock-zram-lz4', 'stock-zram-zstd', 'stock-tiering',
           'pmswap', 'pmswap-hugeoff', 'pmswap-bio', 'pmswap-read',
           'pmswap-always']
BASE = 'stock-pmem'
DESC = {
    'stock-pmem': 'stock 6.12, swap on /dev/pmem0 (block layer)',
    'stock-zram-lz4': 'stock 6.12, swap on zram (lz4; data compresses about 2:1)',
    'stock-zram-zstd': 'stock 6.12, swap on zram (zstd; data compresses about 2:1)',
    'stock-tiering': 'stock 6.12, pmem as CPU-less NUMA node (dax_kmem), '
                     'demotion on, numa_balancing=2, no swap',
    'pmswap': 'pmswap, huge swap entries on, pmem I/O through DAX, '
              'copies back to DRAM (map in place: never)',
    'pmswap-hugeoff': 'pmswap, huge swap entries off, pmem I/O through DAX',
    'pmswap-bio': 'pmswap, huge swap entries on, pmem I/O through bios',
    'pmswap-read': 'pmswap, huge swap entries on, map in place: read '
                   '(read-only in place, first write promotes)',
    'pmswap-always': 'pmswap, huge swap entries on, map in place: always '
                     '(writable in place)',
}
# (key, label, is_time): times are compared as ratios to stock-pmem
WORKLOADS = {
    'rt': [('swapout_ms', 'swap-out ms', True),
           ('swapin_ms', 'read/write-back ms', True),
           ('touch_p50_us', 'touch p50 us', False),
           ('touch_p99_us', 'touch p99 us', False),
           ('fault_n', 'slow touches (>= 20 us)', False),
           ('fault_p50_us', 'fault p50 us', False),
           ('fault_p99_us', 'fault p99 us', False),
           ('swapout_thp_split_pmd', 'PMD splits', False),
           ('swapin_faults', 'faults', False),
           ('d_thp_swpin_pmd', 'huge swap-ins', False),
           ('d_thp_swpin_pmd_fallback', 'huge swap-in fallbacks', False),
           ('d_thp_split_swap_pmd', 'huge entry splits', False),
           ('d_pswpin', 'pages swapped in', False),
           ('dax_pages_read', 'DAX pages read', False),
           ('d_pmswap_inplace_map', 'mapped in place', False),
           ('d_pmswap_inplace_promote', 'promotions', False),
           ('d_pmswap_inplace_pte_map', '4 KiB pages mapped in place', False),
           ('d_pmswap_inplace_pte_promote', '4 KiB pages promoted', False),
           ('thp_after_kb', 'THP after (kB)', False),
           ('swapped_kb', 'swapped (kB)', False),
           ('xa_nodes_after_swapout', 'swap cache XArray nodes after swap-out', False),
           ('verify_bad_pages', 'bad pages', False)],
    'press': [('ms', 'time to finish ms', True),
              ('mibps', 'MiB/s touched', False),
              ('bogo_ops', 'bogo ops', False),
              ('rps', 'GET requests/s', False),
              ('p99_ms', 'GET p99 ms', False),
              ('balloon_survived', 'balloon held (1: all run)', False),
              ('share_mean', 'THP share of anon %', False),
              ('memcg_peak_kb', 'memcg peak kB', False),
              ('zram_mem_used_max_kb', 'zram DRAM kB', False),
              ('major_faults', 'major faults', False),
              ('d_thp_fault_alloc', 'THP faults', False),
              ('d_thp_fault_fallback', 'THP fault fallbacks', False),
              ('d_thp_fault_fallback_charge', 'of them for the charge', False),
              ('d_thp_swpout', 'THPs swapped out whole', False),
              ('d_thp_swpout_fallback', 'THPs split to swap out', False),
              ('d_thp_swpout_pmd', 'huge entries made', False),
              ('d_thp_collapse_alloc', 'khugepaged collapses', False),
              ('d_thp_swpin_pmd', 'huge swap-ins', False),
              ('d_thp_swpin_pmd_fallback', 'huge swap-in fallbacks', False),
              ('d_thp_split_swap_pmd', 'huge entry splits', False),
              ('d_thp_split_pmd', 'PMD splits', False),
              ('d_pmswap_inplace_promote', 'promotions', False),
              ('d_pswpin', 'pswpin', False),
              ('d_pswpout', 'pswpout', False),
              ('d_pmswap_inplace_map', 'mapped in place', False),
              # the 4 KiB level: a split entry's pages that a fault (or
              # its fault-around) mapped on the pmem, and those a write
              # or the scanner copied back to DRAM one page at a time
              ('d_pmswap_inplace_pte_map', '4 KiB pages mapped in place', False),
              ('d_pmswap_inplace_pte_promote', '4 KiB pages promoted', False),
              ('d_pgdemote_direct', 'demoted (direct)', False),
              ('d_pgdemote_kswapd', 'demoted (kswapd)', False),
              ('memcg_oom_kill', 'OOM kills', False),
              ('bad_pages', 'bad pages', False),
              ('stress_errors', 'stress errors', False)],
    'skew': [('mibps', 'MiB/s', True),
             ('share_mean', 'THP share of anon %', False),
             ('d_thp_swpin_pmd', 'huge swap-ins', False),
             ('d_thp_swpin_pmd_fallback', 'huge swap-in fallbacks', False),
             ('d_pswpin', 'pswpin', False),
             ('d_pgpromote_success', 'promoted', False),
             ('d_numa_hint_faults', 'hint faults', False),
             ('d_pmswap_inplace_map', 'mapped in place', False),
             ('d_pmswap_inplace_promote', 'promotions', False),
             ('d_pmswap_inplace_pte_map', '4 KiB pages mapped in place', False),
             ('d_pmswap_inplace_pte_promote', '4 KiB pages promoted', False),
             ('memcg_oom_kill', 'OOM kills', False),
             ('bad_pages', 'bad pages', False)],
}


def load(raw):
    data = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for name in sorted(os.listdir(raw)):
        if not name.endswith('.out'):
            continue
        with open(os.path.join(raw, name), errors='replace') as f:
            for line in f:
                p = line.split()
                if len(p) != 6 or p[0] != 'BENCH':
                    continue
                try:
                    data[p[1]][p[2]][p[3]][p[4]] = float(p[5])
                except ValueError:
                    pass
    # the mean THP share of the memcg's anonymous memory over a run: the
    # mean of cgsample's 100 ms samples, or, in logs from before it, of
    # the one-second samples (a run under a second had one, at its exit)
    for c in data.values():
        for w in c.values():
            for r in w.values():
                sh = [v for k, v in r.items()
                      if k.startswith('share') and k[5:].isdigit()]
                if r.get('share_fine_samples', 0) > 0 and 'share_fine_mean' in r:
                    r['share_mean'] = r['share_fine_mean']
                elif sh:
                    r['share_mean'] = sum(sh) / len(sh)
    return data


def values(data, cfg, wl, key):
    """Values of @key over the runs; a run that failed gives no time or
    throughput (its counts are still shown)."""
    runs = data.get(cfg, {}).get(wl, {}).values()
    timed = key.endswith('_ms') or key in ('ms', 'mibps', 'bogo_ops_per_s', 'bogo_ops') or \
        key.startswith('touch_') or key.startswith('fault_')
    return [r[key] for r in runs if key in r and
            not (timed and r.get('exit_code', 0) != 0)]


def fmt(v):
    if v is None:
        return 'n/a'
    if abs(v) >= 100 or v == int(v):
        return f'{v:.0f}'
    return f'{v:.2f}'


def cell(vals):
    if not vals:
        return 'n/a', None
    med = statistics.median(vals)
    if len(vals) == 1 or min(vals) == max(vals):
        return fmt(med), med
    return f'{fmt(med)} ({fmt(min(vals))}–{fmt(max(vals))})', med


def ratio_cell(vals, base):
    """Median ratio to the base configuration; 'no difference' when the
    two ranges (min-max over the runs) overlap: a difference inside the
    spread is no difference."""
    if not vals or not base:
        return 'n/a'
    m, b = statistics.median(vals), statistics.median(base)
    if not b:
        return 'n/a'
    text = f'{m / b:.2f}'
    if vals is base:
        return text
    if len(vals) < 2 or len(base) < 2:
        return text + ' (one run: no spread)'
    if min(vals) <= max(base) and min(base) <= max(vals):
        return text + ' (no difference: ranges overlap)'
    return text


def time_dat(out, data, present, name, wls):
    """OUT/data/NAME: per configuration, median min max (s) of the time
    to finish of each workload in WLS."""
    with open(os.path.join(out, 'data', name), 'w') as f:
        f.write('# config, then median min max (s) of ' + ' '.join(wls) + '\n')
        for c in present:
            r = []
            for wl in wls:
                v = values(data, c, wl, 'ms')
                r += ([f'{statistics.median(v) / 1000:.2f}', f'{min(v) / 1000:.2f}',
                       f'{max(v) / 1000:.2f}'] if v else ['NaN'] * 3)
            f.write(f'{c} ' + ' '.join(r) + '\n')


def main():
    out = sys.argv[1]
    data = load(os.path.join(out, 'raw'))
    os.makedirs(os.path.join(out, 'data'), exist_ok=True)
    workloads = sorted({w for c in data.values() for w in c})
    runs = max((len(r) for c in data.values() for r in c.values()), default=0)
    md = ['# pmswap benchmark results', '',
          'Made by `make bench` (bench/run.sh, bench/collect.py); raw logs in '
          '`raw/`. Guest: QEMU **TCG** (no KVM), 2 vCPUs, 1536 MiB RAM, '
          '2 GiB emulated NVDIMM on a CPU-less NUMA node, guest memory '
          f'preallocated on the host; {runs} run(s) per cell. '
          'Cells are median (min–max). Times are TCG wall clock and only '
          f'mean something as ratios to `{BASE}` measured in the same '
          '`make bench`; counts are exact.', '',
          '| configuration | what |', '|---|---|']
    present = [c for c in CONFIGS if c in data]
    for c in present:
        md.append(f'| `{c}` | {DESC[c]} |')
    md.append('')
    for wl in workloads:
        kind = wl.split('-')[0].rstrip('0123456789')
        if kind not in WORKLOADS:
            continue
        keys = [k for k in WORKLOADS[kind]
                if any(values(data, c, wl, k[0]) for c in CONFIGS)]
        md += [f'## {wl}', '']
        head = ['configuration', 'runs ok']
        for key, label, is_time in keys:
            head.append(label)
            if is_time:
                head.append(f'{label} / {BASE}')
        md.append('| ' + ' | '.join(head) + ' |')
        md.append('|' + '---|' * len(head))
        base = {k: cell(values(data, BASE, wl, k))[1] for k, _, _ in keys}
        for c in CONFIGS:
            if c not in data:
                continue
            skipped = len(values(data, c, wl, 'skipped'))
            codes = values(data, c, wl, 'exit_code')
            bad = sorted({int(x) for x in codes if x != 0})
            okn = sum(1 for x in codes if x == 0)
            note = f'{okn}/{len(codes)}'
            if bad:
                note += ' (exit ' + ', '.join(
                    {124: '124 = timed out', 143: '143 = timed out', 137: '137 = OOM-killed'}.get(b, str(b))
                    for b in bad) + ')'
            if skipped:
                note += f', {skipped} not repeated after a timeout'
            row = [f'`{c}`', note]
            for key, label, is_time in keys:
                text, med = cell(values(data, c, wl, key))
                row.append(text)
                if is_time:
                    row.append('1.00 (base)' if c == BASE else
                               ratio_cell(values(data, c, wl, key),
                                          values(data, BASE, wl, key)))
            md.append('| ' + ' | '.join(row) + ' |')
        md.append('')
    # data files for the plots
    with open(os.path.join(out, 'data', 'rt.dat'), 'w') as f:
        f.write('# config rt256-read-out rt256-read-in rt256-write-in (ratio to stock-pmem)\n')
        for c in present:
            r = []
            for wl, key in (('rt256-read', 'swapout_ms'), ('rt256-read', 'swapin_ms'),
                            ('rt256-write', 'swapin_ms')):
                m = cell(values(data, c, wl, key))[1]
                b = cell(values(data, BASE, wl, key))[1]
                r.append(f'{m / b:.3f}' if m is not None and b else 'NaN')
            f.write(f'{c} ' + ' '.join(r) + '\n')
    with open(os.path.join(out, 'data', 'skew.dat'), 'w') as f:
        f.write('second ' + ' '.join(present) + '\n')
        skew_ticks = ticks = sorted({int(k[4:]) for c in data.values()
                        for r in c.get('skew', {}).values() for k in r
                        if k.startswith('tick')})
        for t in ticks:
            row = [str(t)]
            for c in present:
                v = values(data, c, 'skew', f'tick{t}')
                row.append(f'{statistics.median(v):.1f}' if v else 'NaN')
            f.write(' '.join(row) + '\n')
    # time to finish each pressure workload: median, min, max (seconds)
    time_dat(out, data, present, 'press.dat', ('press-seq', 'press-rand', 'press-stress'))
    # read-back fault latency: median over runs of each run's p50 and p99
    with open(os.path.join(out, 'data', 'latency.dat'), 'w') as f:
        f.write('# config fault_p50_us fault_p99_us (rt256-read)\n')
        for c in present:
            r = []
            for key in ('fault_p50_us', 'fault_p99_us'):
                v = values(data, c, 'rt256-read', key)
                r.append(f'{statistics.median(v):.1f}' if v else 'NaN')
            f.write(f'{c} ' + ' '.join(r) + '\n')
    # THP share of anonymous memory and DRAM (memcg) over time, per
    # pressure workload (share.dat and dram.dat are press-rand's)
    series = {}
    for wl, suffix in (('press-rand', ''), ('press-global', '-global'),
                       ('press-shift', '-shift'), ('press-redis', '-redis')):
        for key in ('share', 'dram'):
            name = key + suffix
            ticks = sorted({int(k[len(key):]) for c in data.values()
                            for r in c.get(wl, {}).values() for k in r
                            if k.startswith(key) and k[len(key):].isdigit()})
            with open(os.path.join(out, 'data', f'{name}.dat'), 'w') as f:
                f.write('second ' + ' '.join(present) + '\n')
                for t in ticks:
                    row = [str(t)]
                    for c in present:
                        v = values(data, c, wl, f'{key}{t}')
                        row.append(f'{statistics.median(v):.1f}' if v else 'NaN')
                    f.write(' '.join(row) + '\n')
            # a run of a few seconds gives a few one-second samples, the
            # last taken while the workload exits: no curve to draw (the
            # share samples decide for both plots of a workload)
            if key == 'share':
                enough = len(ticks) >= 5
            series[name] = (wl, enough)
    # time to finish global pressure, Redis and the moving hot set
    time_dat(out, data, present, 'press-apps.dat',
             ('press-global', 'press-redis', 'press-shift'))

    def ran(*wls):
        return any(wl in data[c] for c in present for wl in wls)

    # a plot is drawn only when its workloads ran: a subset run (ONLY=)
    # gets the plots of what it measured, not empty ones
    # (output name, plots.gp's which, workload of a curve, draw it)
    wanted = [('rt256', 'rt256', None, ran('rt256-read', 'rt256-write')),
              ('press', 'press', None, ran('press-seq', 'press-rand')),
              ('latency', 'latency', None, ran('rt256-read')),
              # skew's curve needs its one-second samples: a short run
              # that sampled nothing has no x range to draw
              ('skew', 'skew', None, ran('skew') and len(skew_ticks) >= 2),
              ('press-apps', 'press-apps', None,
               ran('press-global', 'press-redis', 'press-shift'))]
    wanted += [(name, name.split('-')[0], wl, has)
               for name, (wl, has) in series.items()]
    plots = []
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'plots.gp')
    for name, which, wl, has in wanted:
        if not has:
            continue
        args = f"dir='{out}'; which='{which}'; name='{name}'; ncol={len(present) + 1}"
        if wl:
            args += f"; wl='{wl}'"
        try:
            subprocess.run(['gnuplot', '-e', args, gp], check=True)
            plots.append(f'{name}.png')
        except (OSError, subprocess.CalledProcessError) as e:
            # gnuplot leaves an empty file behind when a plot fails
            try:
                os.remove(os.path.join(out, f'{name}.png'))
            except OSError:
                pass
            print(f'collect: no {name} plot ({e})', file=sys.stderr)
    if plots:
        md += ['## Plots', '']
        md += [f'![{p}]({p})' for p in plots]
        md.append('')
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write('\n'.join(md))
    print(f'collect: {os.path.join(out, "results.md")}'
          f'{", " + ", ".join(plots) if plots else ""}')


if __name__ == '__main__':
    main()
