#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one guest run, or add up several.

check-results.py --console C --out O --suite S [--baseline B] [--timed-out]
    Counts every TAP test point of every program in O (one case each), adds
    KUnit (KTAP) cases from the console log, and fails the run on any kernel
    warning, BUG, oops, lockdep or KASAN report in C, on a program that ends
    without its results, and on a timeout. Writes O.summary (JSON) and
    prints "S: N passed, N failed, N skipped". Exit 1 when anything failed.

check-results.py --total SUMMARY...
    Adds up summaries and prints the closing line "N passed, N failed, N
    skipped"; exit 1 when any failed or a summary is missing.
"""
import argparse
import json
import re
import sys

# Anything here in the console fails the run.
CONSOLE_BAD = [
    r'WARNING:', r'BUG:', r'Oops', r'general protection', r'KASAN',
    r'possible circular locking', r'possible recursive locking',
    r'inconsistent lock state', r'suspicious RCU usage',
    r'DEBUG_LOCKS_WARN_ON', r'lockdep is turned off',
    r'Kernel panic', r'UBSAN:', r'INFO: task .* blocked',
    r'rcu_sched self-detected stall', r'soft lockup', r'hard LOCKUP',
]
# lockdep's own boot banner is not a report.
CONSOLE_OK = [r'Lock dependency validator']

TAP_RE = re.compile(r'^(not ok|ok)\s+(\d+)\s*-?\s*(.*)$')
PLAN_RE = re.compile(r'^1\.\.(\d+)')
KTAP_RE = re.compile(r'^\[\s*[\d.]+\]\s(\s*)(not ok|ok) (\d+) (\S+)(.*)$')


def norm(desc):
    desc = desc.split(' # ')[0] if ' # ' in desc else desc
    return re.sub(r'\s+', ' ', desc).strip()


def load_baseline(path):
    known = set()
    if not path:
        return known
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#') or '\t' not in line:
                continue
            prog, desc = line.split('\t', 1)
            known.add((prog, norm(desc)))
    return known


def judge(args):
    res = {'suite': args.suite, 'passed': 0, 'failed': 0, 'skipped': 0,
           'failures': [], 'known': []}

    def fail(what):
        res['failed'] += 1
        res['failures'].append(what)

    known = load_baseline(args.baseline)
    try:
        out = open(args.out, errors='replace').read().splitlines()
    except OSError:
        out = []
    try:
        console = open(args.console, errors='replace').read().splitlines()
    except (OSError, TypeError):
        console = []

    prog = None
    seen_begin = seen_end = False
    state = {}
    for line in out:
        line = line.rstrip('\r')
        if line.startswith('PMSWAP-SUITE-BEGIN'):
            seen_begin = True
            continue
        if line.startswith('PMSWAP-SUITE-END'):
            seen_end = True
            continue
        if line.startswith('PMSWAP-BEGIN '):
            prog = line.split()[1]
            state = {'n': 0, 'plan': None, 'fails': 0, 'skip_all': False}
            continue
        if line.startswith('PMSWAP-END '):
            m = re.search(r'rc=(\d+)', line)
            rc = int(m.group(1)) if m else -1
            if rc == 124 or rc == 143:
                fail(f'{prog}: timed out')
            elif state['n'] == 0 and state['skip_all'] and rc == 4:
                # "1..0 # SKIP reason" and KSFT_SKIP: the whole program
                # does not apply here (e.g. the pmem test on zram).
                res['skipped'] += 1
            elif state['n'] == 0:
                fail(f'{prog}: no test results (exit {rc})')
            elif state['plan'] is not None and state['n'] < state['plan']:
                for _ in range(state['plan'] - state['n']):
                    fail(f'{prog}: missing result ({state["n"]} of {state["plan"]} reported)')
            elif rc != 0 and state['fails'] == 0:
                fail(f'{prog}: exit status {rc} with no failed test point')
            prog = None
            continue
        if prog is None:
            continue
        m = PLAN_RE.match(line)
        if m and state['plan'] is None:
            state['plan'] = int(m.group(1))
            state['skip_all'] = (state['plan'] == 0 and
                                 '# SKIP' in line.upper())
            continue
        m = TAP_RE.match(line)
        if not m:
            continue
        state['n'] += 1
        ok, desc = m.group(1) == 'ok', m.group(3)
        directive = desc.split(' # ', 1)[1] if ' # ' in desc else ''
        if desc.startswith('# '):
            directive = desc[2:]
        if ok and directive.upper().startswith('SKIP'):
            res['skipped'] += 1
        elif ok:
            res['passed'] += 1
        elif (prog, norm(desc)) in known:
            res['skipped'] += 1
            res['known'].append(f'{prog}: {norm(desc)}')
            state['fails'] += 1
        else:
            state['fails'] += 1
            fail(f'{prog}: not ok {m.group(2)} {desc}')
    if prog is not None:
        fail(f'{prog}: did not finish (guest died or timed out)')
    if not seen_begin or not seen_end:
        fail(f'suite {args.suite}: did not run to its end')
    if args.timed_out:
        fail(f'suite {args.suite}: guest timed out')

    # KUnit results on the console (cases are indented under their suite).
    for line in console:
        m = KTAP_RE.match(line)
        if not m or len(m.group(1)) != 4:
            continue
        name = m.group(4)
        if m.group(2) == 'ok':
            if 'SKIP' in m.group(5):
                res['skipped'] += 1
            else:
                res['passed'] += 1
        else:
            fail(f'kunit: not ok {name}')

    bad = re.compile('|'.join(CONSOLE_BAD))
    okre = re.compile('|'.join(CONSOLE_OK))
    reports = [l for l in console if bad.search(l) and not okre.search(l)]
    for l in reports[:20]:
        fail(f'console: {l.strip()}')
    if len(reports) > 20:
        fail(f'console: {len(reports) - 20} more bad lines')
    if not console and not args.no_console:
        fail('console: empty console log')

    with open(args.out + '.summary', 'w') as f:
        json.dump(res, f, indent=1)
    for k in res['known']:
        print(f'  known stock failure (skipped): {k}')
    for k in res['failures']:
        print(f'  FAIL {k}')
    print(f'suite {args.suite}: {res["passed"]} passed, {res["failed"]} failed, '
          f'{res["skipped"]} skipped')
    return 1 if res['failed'] else 0


def total(paths):
    p = f_ = s = 0
    rc = 0
    for path in paths:
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError):
            print(f'  FAIL missing summary {path}')
            f_ += 1
            rc = 1
            continue
        p += r['passed']
        f_ += r['failed']
        s += r['skipped']
        if r['failed']:
            rc = 1
    print(f'{p} passed, {f_} failed, {s} skipped')
    return rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console')
    ap.add_argument('--out')
    ap.add_argument('--suite', default='?')
    ap.add_argument('--baseline')
    ap.add_argument('--timed-out', action='store_true')
    ap.add_argument('--no-console', action='store_true',
                    help='host-side results: there is no console log')
    ap.add_argument('--total', nargs='+')
    a = ap.parse_args()
    if a.total:
        return total(a.total)
    return judge(a)


if __name__ == '__main__':
    sys.exit(main())
