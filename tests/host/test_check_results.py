#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of tests/check-results.py, the verdict of every guest run.

Feeds it invented console logs and suite outputs, one case each, and checks
its exit status, its output and its counts: it must fail on a kernel report
on the console (every pattern of tests/console-patterns.txt), on a declared
program that is missing or has no TAP plan, on a crash even after known
stock failures, on a skip its expected-skip list does not have, on a
timeout; it must count KUnit cases once; and it must pass a clean run. The
guest side (tests/guest/run-suite.sh, tests/guest/bin/kunit-tap.sh) runs
here too, on the host, to make the outputs that are judged. Prints TAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHK = os.path.join(REPO, 'tests', 'check-results.py')
TMP = tempfile.mkdtemp(prefix='test-check-results.')

CONSOLE = """\
[    0.000000] Linux version 6.12.118 (pmswap@pmswap) #1 SMP 2024-11-17
[    0.100000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.150000] kasan: KernelAddressSanitizer initialized (generic)
[    0.308673] rcu: Hierarchical RCU implementation.
[    0.308726] rcu: \tRCU restricting CPUs from NR_CPUS=4 to nr_cpu_ids=2.
[    0.676051] rcu: \tMax phase no-delay instances is 1000.
[    1.000000] pmem0: bad block list full, swap slots 10-12 kept as bad by pmswap
[   60.000000] reboot: Power down"""

# The KUnit suite on the console, as 6.12 prints it at boot.
KTAP = """\
[    1.878042] KTAP version 1
[    1.878243] 1..1
[    1.878650]     KTAP version 1
[    1.878767]     # Subtest: pmswap_swap_cache_mi
[    1.879048]     # module: swap_cache_mi_kunit
[    1.879270]     1..3
[    1.885921]     ok 1 mi_store_lookup_every_index
[    1.890130]     {case2} 2 mi_conflict_with_folio
[    1.926664]     # mi_fewer_nodes: XArray nodes for one 2 MiB folio: 9 per-index, 1 multi-index
[    1.934624]     ok 3 mi_fewer_nodes
[    1.934821] # pmswap_swap_cache_mi: pass:3 fail:0 skip:0 total:3
[    1.935046] # Totals: pass:3 fail:0 skip:0 total:3
[    1.935294] {suite} 1 pmswap_swap_cache_mi"""


def prog(name, body, rc=0, start=2.0, end=3.0, taint=None):
    t = f' taint={taint}' if taint is not None else ''
    return (f'PMSWAP-BEGIN {name}\n{body}\n'
            f'PMSWAP-END {name} rc={rc} start={start} end={end}{t}')


def suite(*progs, begin='PMSWAP-SUITE-BEGIN t', end='PMSWAP-SUITE-END t'):
    return '\n'.join([begin] + list(progs) + ([end] if end else []))


TAP2 = 'TAP version 13\n1..2\nok 1 first\nok 2 second # SKIP not here'
CLEAN = suite(prog('prog', TAP2))

n = 0
failed = 0


def read(path):
    with open(path) as f:
        return f.read()


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, 'w') as f:
        f.write(text + '\n')
    return path


def run(out, console=CONSOLE, declare=('prog',), args=(), name='t'):
    """Run the checker; (exit status, output, summary)."""
    o = write(name + '.out', out)
    c = write(name + '.console', console)
    s = write(name + '.suite', '# name timeout command\n' +
              ''.join(f'{p} 60 true\n' for p in declare))
    p = subprocess.run([sys.executable, CHK, '--console', c, '--out', o,
                        '--suite', 't', '--suite-file', s] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, cwd=TMP)
    try:
        with open(o + '.summary') as f:
            summary = json.load(f)
    except (OSError, ValueError):
        summary = None
    return p.returncode, p.stdout, summary


def point(name, good, diag=''):
    global n, failed
    n += 1
    if good:
        print(f'ok {n} {name}')
    else:
        failed += 1
        for line in diag.splitlines():
            print(f'# {line}')
        print(f'not ok {n} {name}')


def expect(name, want_rc, want=(), absent=(), counts=None, **kw):
    """Check exit status, regexes in the output, and (passed, failed, skipped)."""
    if isinstance(want, str):
        want = (want,)
    if isinstance(absent, str):
        absent = (absent,)
    rc, text, summary = run(**kw)
    good = rc == want_rc
    good &= all(re.search(w, text) for w in want)
    good &= not any(re.search(a, text) for a in absent)
    if counts is not None:
        good &= summary is not None and \
            (summary['passed'], summary['failed'], summary['skipped']) == counts
    point(name, good, f'{text}(exit {rc}, wanted {want_rc}, {want}, '
          f'not {absent}, counts {counts})')
    return text


def clean_run():
    expect('clean run passes', 0, 'suite t: 1 passed, 0 failed, 1 skipped',
           'FAIL', out=CLEAN)


# --- the console -----------------------------------------------------------

REPORTS = [
    ('a warning', '[    5.000000] WARNING: CPU: 1 PID: 77 at mm/memory.c:123 do_swap_page+0x1/0x2'),
    ('a KASAN report', '[    5.000000] BUG: KASAN: slab-use-after-free in swap_read_folio+0x1/0x2'),
    ('kernel BUG at', '[    5.000000] kernel BUG at mm/rmap.c:1431!'),
    ('an oops', '[    5.000000] Oops: invalid opcode: 0000 [#1] SMP'),
    ('a general protection fault', '[    5.000000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100'),
    ('a panic', '[    5.000000] Kernel panic - not syncing: Fatal exception'),
    ('UBSAN', '[    5.000000] UBSAN: shift-out-of-bounds in mm/swapfile.c:100:5'),
    ('a SLUB report', '[    5.000000] BUG kmalloc-64 (Not tainted): Poison overwritten'),
    ('list corruption', '[    5.000000] list_del corruption. prev->next should be ffff888003b0c718, but was ffff888003b0c000'),
    ('a refcount warning', '[    5.000000] refcount_t: underflow; use-after-free.'),
    ('lockdep: circular locking', '[    5.000000] WARNING: possible circular locking dependency detected'),
    ('lockdep: inconsistent lock state', '[    5.000000] inconsistent lock state'),
    ('lockdep: suspicious RCU usage', '[    5.000000] suspicious RCU usage.'),
    ('lockdep: DEBUG_LOCKS_WARN_ON', '[    5.000000] DEBUG_LOCKS_WARN_ON(1)'),
    ('swap count: Bad swap offset entry', '[    5.000000] swap_info_get: Bad swap offset entry 0400a0c0'),
    ('swap count: Unused swap offset entry', '[    5.000000] swap_page_trans_huge_swapped: Unused swap offset entry 000a0c00'),
    ('swap count: Bad swap file entry', '[    5.000000] get_swap_device: Bad swap file entry 3c00000000a0c0'),
    ('swap count: Unused swap file entry', '[    5.000000] swap_info_get: Unused swap file entry 3c00000000a0c0'),
    ('Bad page state', '[    5.000000] BUG: Bad page state in process thp_swap_fork  pfn:10a00'),
    ('Bad page map', '[    5.000000] BUG: Bad page map in process thp_swap_race  pte:8000000010a00025 pmd:10b5e067'),
    ('Bad rss-counter state', '[    5.000000] BUG: Bad rss-counter state mm:00000000c8b1ac2e type:MM_SWAPENTS val:-512'),
    ('a bad pmd', '[    5.000000] mm/pgtable-generic.c:53: bad pmd 0000000041f3a1b5(8000000010a000e7)'),
    ('RCU: self-detected stall', '[    5.000000] rcu: INFO: rcu_sched self-detected stall on CPU'),
    ('RCU: detected stalls', '[    5.000000] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'),
    ('RCU: rcu_preempt stall', '[    5.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'),
    ('RCU: expedited stall', '[    5.000000] rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 1-... } 21 jiffies s: 85 root: 0x2/.'),
    ('RCU: tasks stall', '[    5.000000] INFO: rcu_tasks detected stalls on tasks:'),
    ('a soft lockup', '[    5.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [thp_swap_race:123]'),
    ('a hard lockup', '[    5.000000] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1'),
    ('a hung task', '[    5.000000] INFO: task kswapd0:40 blocked for more than 61 seconds.'),
]


def console_cases():
    for what, line in REPORTS:
        expect(f'console: {what} fails', 1,
               'FAIL console: ' + re.escape(line),
               out=suite(prog('prog', TAP2, start=4.0, end=6.0)),
               console=CONSOLE + '\n' + line)
    expect('console: a report is counted once, with the program that ran', 1,
           r'FAIL console: .*Bad swap file entry.* \(at 7\.5 s, while second ran\)',
           counts=(2, 1, 2), declare=('prog', 'second'),
           out=suite(prog('prog', TAP2, start=2, end=7),
                     prog('second', TAP2, start=7, end=8)),
           console=CONSOLE + '\n[    7.500000] swap_info_get: Bad swap file entry 3c00000000a0c0')
    expect('console: an empty console log fails', 1, 'empty console log',
           out=CLEAN, console='')

    # --scan-console (bench/run.sh) reads the same list.
    bad = write('scan.console', CONSOLE + '\n' + REPORTS[14][1])
    good = write('scan-clean.console', CONSOLE)
    p1 = subprocess.run([sys.executable, CHK, '--scan-console', bad],
                        stdout=subprocess.PIPE, text=True)
    p2 = subprocess.run([sys.executable, CHK, '--scan-console', good],
                        stdout=subprocess.PIPE, text=True)
    point('--scan-console prints the report and fails, passes a clean log',
          p1.returncode == 1 and p1.stdout.strip() == REPORTS[14][1] and
          p2.returncode == 0 and p2.stdout == '',
          f'{p1.returncode} {p1.stdout!r} {p2.returncode} {p2.stdout!r}')

    # The list is one file, and grep -E reads it as Python does (for the guest).
    pats = os.path.join(REPO, 'tests', 'console-patterns.txt')
    ere = write('patterns.ere', '\n'.join(
        l for l in read(pats).splitlines()
        if l.strip() and not l.startswith(('#', '!'))))
    lines = write('reports.txt', '\n'.join(l for _, l in REPORTS) + '\n' + CONSOLE)
    p = subprocess.run(['grep', '-c', '-E', '-f', ere, lines],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    point('grep -E reads tests/console-patterns.txt as Python does (every report, no boot line)',
          p.stdout.strip() == str(len(REPORTS)), p.stdout)


# --- programs: declared, planned, finished --------------------------------

def program_cases():
    # A failed program's last lines of its own output follow its FAIL, so
    # the CI log says why; a passing program's output is not printed.
    body = ('# Testing a... done\n# Testing b... skipped [reason: none]\n'
            '# ERROR: nr 7 memory corruption 3 4 (errno=0, @x.c:9)\n'
            'TAP version 13\n1..2\nok 1 a\nnot ok 2 b')
    expect('a failed program\'s last output lines are printed under its FAIL', 1,
           (r'FAIL prog: not ok 2 b\n    \| # Testing b\.\.\. skipped',
            r'    \| # ERROR: nr 7 memory corruption 3 4'),
           (r'\| # Testing a\.\.\. done', r'\| ok 1', r'\| TAP'),
           out=suite(prog('prog', body)))
    expect('a passing program\'s output is not printed', 0, (), r'\| # ERROR',
           out=suite(prog('prog', '# ERROR: only a comment\n' + TAP2)))
    expect('a declared program missing from the output fails', 1,
           'other: missing from the output', declare=('prog', 'other'), out=CLEAN)
    expect('a program the suite does not declare fails', 1,
           'extra: ran, but .* does not declare it',
           out=suite(prog('prog', TAP2), prog('extra', TAP2, start=3, end=4)))
    expect('a program that ran twice fails', 1, 'prog: ran 2 times',
           out=suite(prog('prog', TAP2), prog('prog', TAP2, start=3, end=4)))
    expect('a program without a TAP plan fails', 1, 'prog: no TAP plan',
           out=suite(prog('prog', 'TAP version 13\nok 1 first\nok 2 second')))
    expect('a program with more results than its plan fails', 1,
           'prog: 3 results, its plan says 2',
           out=suite(prog('prog', TAP2 + '\nok 3 third')))
    expect('missing results fail, one each', 1, 'missing result', counts=(1, 1, 1),
           out=CLEAN.replace('1..2', '1..3'))
    expect('a program that never ends fails', 1,
           ('prog: did not finish', 'did not run to its end'),
           out='PMSWAP-SUITE-BEGIN t\nPMSWAP-BEGIN prog\n' + TAP2)
    expect('a program without results fails', 1, r'prog: no test results \(exit 0\)',
           out=suite(prog('prog', 'TAP version 13')))
    expect('not ok fails', 1, 'FAIL prog: not ok 2 second',
           out=CLEAN.replace('ok 2 second # SKIP not here', 'not ok 2 second'))
    expect('Bail out! fails', 1, 'prog: Bail out! cannot set in-place policy',
           out=suite(prog('prog', TAP2 + '\nBail out! cannot set in-place policy')))
    expect('exit status 1 without a failed test point fails', 1,
           'exit status 1 with no failed test point', out=suite(prog('prog', TAP2, rc=1)))
    expect('a timeout (busybox timeout: exit 143) fails', 1, r'prog: timed out \(exit 143\)',
           out=suite(prog('prog', TAP2, rc=143)))
    expect('a guest timeout fails', 1, 'suite t: guest timed out', out=CLEAN,
           args=['--timed-out'])
    expect('a guest-side error fails', 1, 'PMSWAP-ERROR no suite t',
           declare=(), out=suite('PMSWAP-ERROR no suite t'))
    expect('a stale initramfs (its suite file differs) fails', 1, 'rebuild the initramfs',
           out=suite('PMSWAP-PROGRAMS prog gone', prog('prog', TAP2)))
    expect('the guest\'s program list, when it matches, passes', 0, 'suite t: 1 passed',
           out=suite('PMSWAP-PROGRAMS prog', prog('prog', TAP2)))
    expect('an END marker glued to output without a newline is found', 0,
           'suite t: 1 passed, 0 failed, 1 skipped',
           out=CLEAN.replace('not here\nPMSWAP-END', 'not herePMSWAP-END'))
    skip_all = suite(prog('prog', 'TAP version 13\n1..0 # SKIP no pmem here', rc=4))
    expect('whole-program skip (plan 1..0 with SKIP, exit 4) is one skip', 0,
           '0 passed, 0 failed, 1 skipped', out=skip_all)
    expect('a plan 1..0 with SKIP and exit 0 still fails', 1, 'no test results',
           out=skip_all.replace('rc=4', 'rc=0'))
    # Every suite file of the repository declares each program once.
    bad = []
    sdir = os.path.join(REPO, 'tests', 'guest', 'suites')
    for s in sorted(os.listdir(sdir)):
        names = [l.split()[0] for l in read(os.path.join(sdir, s)).splitlines()
                 if l.split() and not l.startswith('#')]
        if not names or len(names) != len(set(names)):
            bad.append(s)
    point('every tests/guest/suites file declares its programs once', not bad,
          f'bad: {bad}')


# --- crashes and known stock failures --------------------------------------

def crash_cases():
    base = write('baseline', '# known\nprog\tsecond')
    failing = CLEAN.replace('ok 2 second # SKIP not here', 'not ok 2 second')
    expect('a known stock failure is skipped', 0, 'known stock failure',
           counts=(1, 0, 1), out=failing.replace('rc=0', 'rc=1'),
           args=['--baseline', base])
    expect('a known stock failure with a reason after " # " is still known', 0,
           'known stock failure', counts=(1, 0, 1),
           out=failing.replace('not ok 2 second', 'not ok 2 second # cut off by exit status 1'),
           args=['--baseline', base])
    expect('an unknown failure with a reason after " # " fails', 1, 'FAIL prog',
           out=failing.replace('not ok 2 second', 'not ok 2 first2 # cut off by exit status 1'),
           args=['--baseline', base])
    expect('a crash (SIGSEGV, exit 139) fails even after a known stock failure', 1,
           r'prog: crashed: exit 139 \(killed by signal 11, SIGSEGV\)',
           out=failing.replace('rc=0', 'rc=139'), args=['--baseline', base])
    expect('a crash with every result reported fails (SIGABRT, exit 134)', 1,
           r'crashed: exit 134 \(killed by signal 6, SIGABRT\)',
           out=CLEAN.replace('rc=0', 'rc=134'))
    expect('a program killed by the OOM killer (SIGKILL, 137) fails', 1,
           'signal 9, SIGKILL', out=CLEAN.replace('rc=0', 'rc=137'))
    expect('a crash before any result fails', 1, ('crashed: exit 139', 'no test results'),
           out=suite(prog('prog', 'TAP version 13\n1..2', rc=139)))


# --- expected skips --------------------------------------------------------

SKIPPY = suite(
    prog('prog', 'TAP version 13\n1..3\nok 1 first\nok 2 # SKIP map in place: not on pmem\n'
         'ok 3 third # SKIP huge swap entries are off'),
    prog('inplace_read', 'TAP version 13\n1..0 # SKIP swap is not on a pmem device with map in place',
         rc=4, start=3, end=4))


def skip_cases():
    decl = ('prog', 'inplace_read')
    full = write('full.txt', '# reasons\n'
                 'prog: map in place  # zram: nothing to map\n'
                 'prog: third  # huge_swap off here\n'
                 'inplace_*: 1..0  # zram\n')
    expect('listed skips pass', 0, 'suite t: 1 passed, 0 failed, 3 skipped',
           'note', declare=decl, out=SKIPPY, args=['--expected-skips', full])
    expect('a pass that turns into a skip fails', 1,
           r'prog: unexpected skip: ok 1 first # SKIP out of memory \(not in full.txt\)',
           counts=(0, 1, 3), declare=decl,
           out=SKIPPY.replace('ok 1 first', 'ok 1 first # SKIP out of memory'),
           args=['--expected-skips', full])
    expect('a program that now skips as a whole fails', 1,
           r'prog: unexpected skip: 1\.\.0 # SKIP no pmem',
           declare=decl, args=['--expected-skips', full],
           out=suite(prog('prog', 'TAP version 13\n1..0 # SKIP no pmem', rc=4),
                     prog('inplace_read', '1..0 # SKIP x', rc=4, start=3, end=4)))
    part = write('part.txt', 'prog: map in place\nprog: third\n'
                 'inplace_read: 1..0\nprog: fourth  # gone\n')
    expect('an expected skip that did not happen is reported, not a failure', 0,
           ('note: expected skip did not happen: prog: fourth', 'suite t: 1 passed, 0 failed, 3 skipped'),
           declare=decl, out=SKIPPY, args=['--expected-skips', part])
    # One entry's text is part of another's ("anon" in "anon_thp"): each
    # skip counts for its own entry, so neither is reported as missing.
    overlap = suite(prog('mig', 'TAP version 13\n1..2\n'
                         'ok 1 mig.anon # SKIP no nodes\n'
                         'ok 2 mig.anon_thp # SKIP no nodes'))
    expect('overlapping entries: each skip counts for the most specific one', 0,
           'suite t: 0 passed, 0 failed, 2 skipped', 'expected skip did not happen',
           declare=('mig',), out=overlap, args=['--expected-skips', write(
               'overlap.txt', 'mig: mig.anon\nmig: mig.anon_thp\n')])
    expect('a whole-program skip not listed fails', 1,
           'inplace_read: unexpected skip: 1..0 # SKIP swap is not on a pmem',
           declare=decl, out=SKIPPY, args=['--expected-skips', write(
               'noall.txt', 'prog: map in place\nprog: third\n')])
    expect('a malformed list line fails', 1, r'bad\.txt:2: not "program: text"',
           declare=decl, out=SKIPPY, args=['--expected-skips', write(
               'bad.txt', 'prog: map in place\njust text\nprog: third\ninplace_read: 1..0')])
    missing = os.path.join(TMP, 'feature-zram.txt')
    expect('no list: noted, skips not checked, passes', 0,
           r'note: no expected-skip list for feature-zram \(feature-zram.txt\): skips not checked',
           counts=(1, 0, 3), declare=decl, out=SKIPPY, args=['--expected-skips', missing])
    expect('no list with --strict-skips fails', 1,
           'FAIL no expected-skip list for feature-zram', declare=decl, out=SKIPPY,
           args=['--expected-skips', missing, '--strict-skips'])

    # --write-skips and update.sh make a list the checker accepts, and keep
    # the lines of the old list that still match.
    root = os.path.join(TMP, 'repo')
    os.makedirs(os.path.join(root, 'tests', 'expected-skips'))
    for f in ('check-results.py', 'console-patterns.txt'):
        shutil.copy(os.path.join(REPO, 'tests', f), os.path.join(root, 'tests', f))
    upd = os.path.join(root, 'tests', 'expected-skips', 'update.sh')
    shutil.copy(os.path.join(REPO, 'tests', 'expected-skips', 'update.sh'), upd)
    logs = os.path.join(TMP, 'logs')
    os.makedirs(logs)
    with open(os.path.join(logs, 'feature-zram.out'), 'w') as f:
        f.write(SKIPPY + '\n')
    lst = os.path.join(root, 'tests', 'expected-skips', 'feature-zram.txt')
    p = subprocess.run(['bash', upd, logs, 'feature-zram'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    made = read(lst) if os.path.exists(lst) else ''
    entries = [l for l in made.splitlines() if l and not l.startswith('#')]
    point('update.sh writes the list from a run',
          p.returncode == 0 and entries == [
              'prog: map in place: not on pmem',
              'prog: third  # huge swap entries are off',
              'inplace_read: 1..0  # swap is not on a pmem device with map in place'],
          p.stdout + made)
    expect('the run passes with the list update.sh made', 0,
           'suite t: 1 passed, 0 failed, 3 skipped', 'note', declare=decl,
           out=SKIPPY, args=['--expected-skips', lst])
    with open(lst, 'w') as f:
        f.write('prog: map in place  # zram: nothing is mapped in place\n'
                'prog: gone  # not skipped any more\n')
    p = subprocess.run(['bash', upd, logs, 'feature-zram'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    made = read(lst)
    entries = [l for l in made.splitlines() if l and not l.startswith('#')]
    point('update.sh keeps hand-written lines that still match, drops the others',
          entries[0] == 'prog: map in place  # zram: nothing is mapped in place' and
          len(entries) == 3 and 'dropped "prog: gone' in p.stdout, p.stdout + made)


# --- KUnit -----------------------------------------------------------------

def kunit_output(case2_ok=True, suites=('pmswap_swap_cache_mi',)):
    """tests/guest/bin/kunit-tap.sh on a results file as 6.12's debugfs has it."""
    d = os.path.join(TMP, 'kunit')
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'pmswap_swap_cache_mi'))
    st = 'ok' if case2_ok else 'not ok'
    with open(os.path.join(d, 'pmswap_swap_cache_mi', 'results'), 'w') as f:
        f.write('KTAP version 1\n1..1\n    KTAP version 1\n'
                '    # Subtest: pmswap_swap_cache_mi\n    1..3\n'
                '    ok 1 mi_store_lookup_every_index\n'
                f'    {st} 2 mi_conflict_with_folio\n'
                '    # mi_fewer_nodes: XArray nodes for one 2 MiB folio: 9 per-index, 1 multi-index\n'
                '    ok 3 mi_fewer_nodes\n'
                '# pmswap_swap_cache_mi: pass:3 fail:0 skip:0 total:3\n'
                f'{"ok" if case2_ok else "not ok"} 1 pmswap_swap_cache_mi\n')
    p = subprocess.run(['sh', os.path.join(REPO, 'tests', 'guest', 'bin', 'kunit-tap.sh')] +
                       list(suites), stdout=subprocess.PIPE, text=True,
                       env=dict(os.environ, KUNIT_DEBUGFS=d, TMPDIR=TMP))
    return p.stdout.rstrip('\n'), p.returncode


def kunit_cases():
    ok_console = CONSOLE + '\n' + KTAP.format(case2='ok', suite='ok')
    bad_console = CONSOLE + '\n' + KTAP.format(case2='not ok', suite='not ok')
    tap, rc = kunit_output()
    decl = ('setup', 'kunit')
    setup = prog('setup', 'TAP version 13\n1..1\nok 1 swapon', start=2, end=3)
    expect('KUnit cases are counted once (kunit-tap.sh and the console)', 0,
           'suite t: 4 passed, 0 failed, 0 skipped', declare=decl,
           out=suite(setup, prog('kunit', tap, rc=rc, start=3, end=4)),
           console=ok_console)
    tap, rc = kunit_output(case2_ok=False)
    expect('a failed KUnit case is one failure, not two', 1,
           'FAIL kunit: not ok 2 pmswap_swap_cache_mi: mi_conflict_with_folio',
           r'console\)', counts=(3, 1, 0), declare=decl,
           out=suite(setup, prog('kunit', tap, rc=rc, start=3, end=4)),
           console=bad_console)
    expect('KUnit on the console of a suite without the kunit program: not counted', 0,
           'suite t: 1 passed, 0 failed, 0 skipped', declare=('setup',),
           out=suite(setup), console=ok_console)
    expect('a failed KUnit case on the console alone fails', 1,
           r'FAIL kunit: not ok pmswap_swap_cache_mi: mi_conflict_with_folio \(console\)',
           counts=(1, 1, 0), declare=('setup',), out=suite(setup), console=bad_console)
    tap, rc = kunit_output(suites=('pmswap_swap_cache_mi', 'no_such_suite'))
    expect('a KUnit suite that did not run fails', 1,
           'not ok 4 no_such_suite: no KUnit results', declare=decl,
           out=suite(setup, prog('kunit', tap, rc=rc, start=3, end=4)),
           console=ok_console)


# --- the kernel's taint ----------------------------------------------------

def taint_cases():
    begin = 'PMSWAP-SUITE-BEGIN t taint=262144'         # TAINT_TEST: KUnit ran
    expect('a new warning taint with nothing on the console fails', 1,
           r'prog: the kernel got tainted W \(warning\) while it ran',
           out=suite(prog('prog', TAP2, taint=262144 | 512), begin=begin))
    expect('the KUnit taint (N) is no report', 0, 'suite t: 1 passed',
           out=suite(prog('prog', TAP2, taint=262144), begin=begin))
    expect('a warning taint with its console report: one failure', 1,
           'FAIL console: .*WARNING:', 'tainted', counts=(1, 1, 1),
           out=suite(prog('prog', TAP2, start=4, end=6, taint=262144 | 512), begin=begin),
           console=CONSOLE + '\n' + REPORTS[0][1])


# --- totals ----------------------------------------------------------------

def total_cases():
    a = write('a.out.summary', json.dumps({'passed': 10, 'failed': 0, 'skipped': 2}))
    b = write('b.out.summary', json.dumps({'passed': 5, 'failed': 1, 'skipped': 0}))
    p = subprocess.run([sys.executable, CHK, '--total', a, a], stdout=subprocess.PIPE, text=True)
    point('--total prints the closing line "N passed, N failed, N skipped"',
          p.returncode == 0 and p.stdout.splitlines()[-1] == '20 passed, 0 failed, 4 skipped',
          p.stdout)
    p = subprocess.run([sys.executable, CHK, '--total', a, b], stdout=subprocess.PIPE, text=True)
    point('--total fails when a suite failed',
          p.returncode == 1 and p.stdout.splitlines()[-1] == '15 passed, 1 failed, 2 skipped',
          p.stdout)
    p = subprocess.run([sys.executable, CHK, '--total', a, os.path.join(TMP, 'none.summary')],
                       stdout=subprocess.PIPE, text=True)
    point('--total fails on a missing summary',
          p.returncode == 1 and 'FAIL missing summary' in p.stdout and
          p.stdout.splitlines()[-1] == '10 passed, 1 failed, 2 skipped', p.stdout)


# --- the guest side, run here ---------------------------------------------

def guest_cases():
    """tests/guest/run-suite.sh frames programs; the checker judges them."""
    sdir = os.path.join(TMP, 'suites')
    os.makedirs(sdir)
    bin_ = os.path.join(TMP, 'bin')
    os.makedirs(bin_)
    progs = {
        'good': 'echo "TAP version 13"; echo 1..2; echo "ok 1 a"; echo "ok 2 b"',
        'segv': 'echo "TAP version 13"; echo 1..1; echo "ok 1 a"; kill -SEGV $$',
        'noplan': 'echo "TAP version 13"; echo "ok 1 a"',
        'nonl': 'echo "TAP version 13"; echo 1..1; printf "ok 1 a"',
    }
    with open(os.path.join(sdir, 'g'), 'w') as f:
        f.write('# the host-side test suite\n')
        for name, body in progs.items():
            path = os.path.join(bin_, name)
            with open(path, 'w') as s:
                s.write('#!/bin/sh\n' + body + '\n')
            os.chmod(path, 0o755)
            f.write(f'{name} 60 {path}\n')
    p = subprocess.run(['sh', os.path.join(REPO, 'tests', 'guest', 'run-suite.sh'), 'g'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, PMSWAP_SUITES=sdir))
    out = 'PMSWAP-SUITE-BEGIN g\n' + p.stdout + 'PMSWAP-SUITE-END g'
    point('run-suite.sh lists the programs of its suite file first',
          'PMSWAP-PROGRAMS good segv noplan nonl\n' in p.stdout, p.stdout)
    point('run-suite.sh reports the exit status and the taint',
          re.search(r'PMSWAP-END segv rc=139 start=[\d.]+ end=[\d.]+ taint=\d+', p.stdout)
          is not None, p.stdout)
    expect('run-suite.sh output: a crash and a program without a plan fail', 1,
           (r'segv: crashed: exit 139 \(killed by signal 11, SIGSEGV\)',
            'noplan: no TAP plan'), ('good:', 'nonl:'), counts=(5, 2, 0),
           declare=tuple(progs), out=out, console=CONSOLE)


def main():
    print('TAP version 13')
    try:
        clean_run()
        console_cases()
        program_cases()
        crash_cases()
        skip_cases()
        kunit_cases()
        taint_cases()
        total_cases()
        guest_cases()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
