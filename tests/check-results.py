#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one guest run, or add up several.

check-results.py --console C --out O --suite S [--suite-file F]
                 [--baseline B] [--expected-skips L [--strict-skips]]
                 [--timed-out] [--no-console]
    Counts every TAP test point of every program in O (one case each) and
    fails the run on:
    - a program the suite declares (F, default tests/guest/suites/S) that
      is missing from O, a program in O that F does not declare, a program
      without a TAP plan, with fewer or more results than its plan, that
      bails out, or that ends with a non-zero exit and no failed point;
    - a program killed by a signal (exit 128 or more), even when all its
      failures are known stock failures; a timeout;
    - any "not ok" that is not a known stock failure (B, then a skip);
    - a skip that the expected-skip list L does not list (a listed skip
      that did not happen is only reported); without L, --strict-skips
      fails the run, otherwise skips are not checked;
    - any console line matching tests/console-patterns.txt, a failed
      KUnit case on the console, and (when the console shows nothing) a
      new warning/bad-page/oops/lockup taint of the kernel.
    KUnit cases are counted from the program that reports them
    (tests/guest/bin/kunit-tap.sh); the console's KTAP only adds failures
    that no program reported. Writes O.summary (JSON) and prints
    "suite S: N passed, N failed, N skipped". Exit 1 when anything failed.

check-results.py --total SUMMARY...
    Adds up summaries and prints the closing line "N passed, N failed, N
    skipped"; exit 1 when any failed or a summary is missing.

check-results.py --scan-console C
    Prints the lines of C that match tests/console-patterns.txt; exit 1
    when there is one.

check-results.py --write-skips O [--expected-skips L]
    Prints an expected-skip list made from the skips in O, keeping the
    lines of L that still match one (tests/expected-skips/update.sh).
"""
import argparse
import fnmatch
import json
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = os.path.join(HERE, 'console-patterns.txt')
SUITES = os.path.join(HERE, 'guest', 'suites')

TAP_RE = re.compile(r'^(not ok|ok)\s+(\d+)\s*-?\s*(.*)$')
PLAN_RE = re.compile(r'^1\.\.(\d+)')
CONSOLE_RE = re.compile(r'^\[\s*(\d+\.\d+)\]\s?(.*)$')
KTAP_CASE_RE = re.compile(r'^(not ok|ok) (\d+) (\S+)(.*)$')
KTAP_SUITE_RE = re.compile(r'^# Subtest: (\S+)')
# Lines of a failed program's own output printed under its FAIL lines, so
# a CI log that shows only the summary still says why (e.g. the message
# of an upstream selftest's err()).
TAIL_LINES = 6
MARKERS = ('PMSWAP-BEGIN ', 'PMSWAP-END ', 'PMSWAP-SUITE-BEGIN',
           'PMSWAP-SUITE-END', 'PMSWAP-PROGRAMS', 'PMSWAP-ERROR')

# Kernel taint bits that mean a kernel report (include/linux/panic.h). A
# new one fails the run when the console shows no report for it (lost
# console lines); TAINT_TEST (KUnit ran) and the others are not reports.
TAINTS = {5: 'B (bad page)', 7: 'D (oops)', 9: 'W (warning)',
          14: 'L (soft lockup)'}


def norm(desc):
    desc = desc.split(' # ')[0] if ' # ' in desc else desc
    return re.sub(r'\s+', ' ', desc).strip()


def squash(text):
    return re.sub(r'\s+', ' ', text).strip()


def read_lines(path):
    try:
        with open(path, errors='replace') as f:
            return [l.rstrip('\n').rstrip('\r') for l in f]
    except (OSError, TypeError):
        return []


def load_patterns(path=PATTERNS):
    """The console patterns: (reports, exceptions) as compiled regexes."""
    bad, ok = [], []
    for line in read_lines(path):
        if not line.strip() or line.startswith('#'):
            continue
        (ok if line.startswith('!') else bad).append(line.lstrip('!'))
    if not bad:
        sys.exit(f'check-results: no console patterns in {path}')
    return (re.compile('|'.join(f'(?:{p})' for p in bad)),
            re.compile('|'.join(f'(?:{p})' for p in ok)) if ok else None)


def console_reports(console, patterns):
    bad, okre = patterns
    return [l for l in console
            if bad.search(l) and not (okre and okre.search(l))]


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


def load_suite(path):
    """Program names a suite file declares ("name timeout command")."""
    names = []
    for line in read_lines(path):
        words = line.split()
        if not words or words[0].startswith('#'):
            continue
        names.append(words[0])
    return names


class Skips:
    """An expected-skip list: "program: text  # reason" lines."""

    def __init__(self, path):
        self.path = path
        self.entries = []      # [program pattern, text, raw line, hits]
        self.errors = []
        for i, raw in enumerate(read_lines(path), 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            line = line.split(' # ', 1)[0].strip()
            prog, colon, text = line.partition(':')
            if not colon or not prog.strip():
                self.errors.append(f'{path}:{i}: not "program: text"')
                continue
            self.entries.append([prog.strip(), squash(text), raw, 0])

    def match(self, prog, text):
        """The most specific entry: an exact text first, then the longest
        ("migration.private_anon" is part of "migration.private_anon_thp",
        and each of the two skips must count for its own entry)."""
        hits = [e for e in self.entries
                if fnmatch.fnmatchcase(prog, e[0]) and e[1] in text]
        if not hits:
            return None
        return max(hits, key=lambda e: (e[1] == text, len(e[1])))


class Prog:
    def __init__(self, name):
        self.name = name
        self.points = []       # dicts: ok, num, desc, skip, reason
        self.plan = None
        self.skip_all = None   # the plan line of "1..0 # SKIP reason"
        self.ended = False
        self.rc = None
        self.start = self.end = None
        self.taint = None
        self.bail = []
        self.tail = []         # its last lines that are not test points


def split_markers(line):
    """A marker glued to output without a newline starts a line of its own."""
    for m in MARKERS:
        i = line.find(m)
        if i > 0:
            return [line[:i], line[i:]]
    return [line]


def parse_out(lines):
    """The framed output: (suite info, programs in the order they ran)."""
    info = {'begin': False, 'end': False, 'taint': None, 'programs': None,
            'errors': []}
    progs = []
    cur = None
    for raw in lines:
        for line in split_markers(raw):
            if line.startswith('PMSWAP-SUITE-BEGIN'):
                info['begin'] = True
                m = re.search(r'taint=(\d+)', line)
                info['taint'] = int(m.group(1)) if m else None
                continue
            if line.startswith('PMSWAP-SUITE-END'):
                info['end'] = True
                continue
            if line.startswith('PMSWAP-PROGRAMS'):
                info['programs'] = line.split()[1:]
                continue
            if line.startswith('PMSWAP-ERROR'):
                info['errors'].append(line)
                continue
            if line.startswith('PMSWAP-BEGIN '):
                cur = Prog(line.split()[1] if len(line.split()) > 1 else '?')
                progs.append(cur)
                continue
            if line.startswith('PMSWAP-END '):
                if cur is None:
                    continue
                cur.ended = True
                for key in ('rc', 'taint'):
                    m = re.search(key + r'=(\d+)', line)
                    setattr(cur, key, int(m.group(1)) if m else None)
                for key in ('start', 'end'):
                    m = re.search(key + r'=([\d.]+)', line)
                    setattr(cur, key, float(m.group(1)) if m else None)
                cur = None
                continue
            if cur is None:
                continue
            if not TAP_RE.match(line) and not PLAN_RE.match(line) and \
                    line.strip() and not line.startswith('TAP version') and \
                    not line.rstrip().endswith('... done'):
                cur.tail = (cur.tail + [line.rstrip()])[-TAIL_LINES:]
            if line.startswith('Bail out!'):
                cur.bail.append(line)
                continue
            m = PLAN_RE.match(line)
            if m:
                if cur.plan is None:
                    cur.plan = int(m.group(1))
                    if cur.plan == 0 and '# SKIP' in line.upper():
                        cur.skip_all = squash(line)
                continue
            m = TAP_RE.match(line)
            if not m:
                continue
            desc = m.group(3)
            directive = desc.split(' # ', 1)[1] if ' # ' in desc else ''
            if desc.startswith('# '):
                directive = desc[2:]
            skip = m.group(1) == 'ok' and directive.upper().startswith('SKIP')
            cur.points.append({'ok': m.group(1) == 'ok', 'num': m.group(2),
                               'desc': desc, 'skip': skip,
                               'reason': directive[4:].strip() if skip else ''})
    return info, progs


def skip_texts(prog):
    """(text matched against the list, text to list, reason) per skip."""
    if prog.skip_all is not None and not prog.points:
        reason = prog.skip_all.split('# SKIP', 1)[-1].strip()
        return [(prog.skip_all, '1..0', reason)]
    out = []
    for p in prog.points:
        if not p['skip']:
            continue
        text = norm(p['desc'])
        if text and not text.startswith('#'):
            out.append((squash(p['desc']), text, p['reason']))
        else:
            out.append((squash(p['desc']), p['reason'], ''))
    return out


def signame(rc):
    try:
        return signal.Signals(rc - 128).name
    except ValueError:
        return None


def parse_console(console):
    """(timestamp or None, message) per line; KUnit cases from KTAP."""
    lines, kunit = [], []
    suite = None
    for l in console:
        m = CONSOLE_RE.match(l)
        if not m:
            lines.append((None, l))
            continue
        t, msg = float(m.group(1)), m.group(2)
        lines.append((t, l))
        indent = len(msg) - len(msg.lstrip(' '))
        body = msg.strip()
        if indent != 4:
            continue
        m = KTAP_SUITE_RE.match(body)
        if m:
            suite = m.group(1)
            continue
        m = KTAP_CASE_RE.match(body)
        if m:
            kunit.append({'suite': suite, 'case': m.group(3),
                          'ok': m.group(1) == 'ok',
                          'skip': 'SKIP' in m.group(4)})
    return lines, kunit


def when(t, progs):
    """Which program ran at console time t (uptime seconds), roughly."""
    if t is None:
        return ''
    prev_end = None
    for p in progs:
        start = p.start if p.start is not None else prev_end
        end = p.end if p.ended and p.end is not None else None
        if start is not None and t < start:
            break
        if start is not None and (end is None or t <= end):
            return f' (at {t:.1f} s, while {p.name} ran)'
        prev_end = end if end is not None else prev_end
    else:
        if progs and prev_end is not None:
            return f' (at {t:.1f} s, after {progs[-1].name})'
    if prev_end is None:
        return f' (at {t:.1f} s, before the first program)'
    return f' (at {t:.1f} s, between programs)'


def judge(args):
    res = {'suite': args.suite, 'passed': 0, 'failed': 0, 'skipped': 0,
           'failures': [], 'known': [], 'notes': [], 'output': {}}

    def fail(what):
        res['failed'] += 1
        res['failures'].append(what)

    def note(what):
        res['notes'].append(what)

    known = load_baseline(args.baseline)
    out = read_lines(args.out)
    console = [] if args.no_console else read_lines(args.console)
    info, progs = parse_out(out)

    # The expected-skip list.
    skips = None
    if args.expected_skips:
        tag = os.path.basename(args.expected_skips)
        tag = tag[:-4] if tag.endswith('.txt') else tag
        rel = os.path.relpath(args.expected_skips)
        if os.path.exists(args.expected_skips):
            skips = Skips(args.expected_skips)
            for e in skips.errors:
                fail(f'expected skips: {e}')
        elif args.strict_skips:
            fail(f'no expected-skip list for {tag} ({rel}): '
                 'tests/expected-skips/update.sh LOGDIR makes one')
        else:
            note(f'no expected-skip list for {tag} ({rel}): skips not checked')
    elif args.strict_skips:
        fail('--strict-skips without --expected-skips')

    # The programs the suite declares.
    suite_file = args.suite_file
    if not suite_file and os.path.exists(os.path.join(SUITES, args.suite)):
        suite_file = os.path.join(SUITES, args.suite)
    declared = None
    if suite_file and os.path.exists(suite_file):
        declared = load_suite(suite_file)
        for name in sorted({n for n in declared if declared.count(n) > 1}):
            fail(f'{name}: declared more than once in {suite_file}')
    else:
        fail(f'suite {args.suite}: no list of its programs '
             f'({suite_file or os.path.join(SUITES, args.suite)} missing)')

    kunit_seen = set()    # "suite: case" texts that a program reported
    for prog in progs:
        n = len(prog.points)
        fails = 0
        for p in prog.points:
            kunit_seen.add(norm(p['desc']))
            if p['skip']:
                if skips is not None:
                    e = skips.match(prog.name, squash(p['desc']))
                    if e is None:
                        fail(f'{prog.name}: unexpected skip: ok {p["num"]} '
                             f'{p["desc"]} (not in {os.path.relpath(skips.path)})')
                        continue
                    e[3] += 1
                res['skipped'] += 1
            elif p['ok']:
                res['passed'] += 1
            elif (prog.name, norm(p['desc'])) in known:
                res['skipped'] += 1
                res['known'].append(f'{prog.name}: {norm(p["desc"])}')
                fails += 1
            else:
                fails += 1
                fail(f'{prog.name}: not ok {p["num"]} {p["desc"]}')
        for b in prog.bail:
            fail(f'{prog.name}: {b}')
        rc = prog.rc
        if not prog.ended:
            fail(f'{prog.name}: did not finish (guest died or timed out)')
            continue
        if rc is None:
            fail(f'{prog.name}: no exit status')
        elif rc in (124, 143):
            fail(f'{prog.name}: timed out (exit {rc})')
        elif rc >= 128:
            sig = signame(rc)
            fail(f'{prog.name}: crashed: exit {rc}' +
                 (f' (killed by signal {rc - 128}, {sig})' if sig else ''))
        if n == 0 and prog.skip_all is not None and rc == 4:
            # "1..0 # SKIP reason" and KSFT_SKIP: the whole program does
            # not apply here (e.g. the pmem test on zram).
            if skips is not None:
                e = skips.match(prog.name, prog.skip_all)
                if e is None:
                    fail(f'{prog.name}: unexpected skip: {prog.skip_all} '
                         f'(not in {os.path.relpath(skips.path)})')
                    continue
                e[3] += 1
            res['skipped'] += 1
        elif n == 0:
            fail(f'{prog.name}: no test results (exit {rc})')
        elif prog.plan is None:
            fail(f'{prog.name}: no TAP plan ({n} results, exit {rc})')
        elif n < prog.plan:
            for _ in range(prog.plan - n):
                fail(f'{prog.name}: missing result ({n} of {prog.plan} reported)')
        elif n > prog.plan:
            fail(f'{prog.name}: {n} results, its plan says {prog.plan}')
        elif (rc is not None and rc not in (0, 124, 143) and rc < 128 and
              fails == 0):
            fail(f'{prog.name}: exit status {rc} with no failed test point')

    ran = [p.name for p in progs]
    if declared is not None:
        for name in declared:
            if name not in ran:
                fail(f'{name}: missing from the output (declared in '
                     f'{os.path.relpath(suite_file)}, never started)')
        for name in sorted(set(ran)):
            if name not in declared:
                fail(f'{name}: ran, but {os.path.relpath(suite_file)} '
                     'does not declare it')
            elif ran.count(name) > 1:
                fail(f'{name}: ran {ran.count(name)} times')
        if info['programs'] is not None and info['programs'] != declared:
            fail(f'suite {args.suite}: the guest ran the suite file '
                 f'"{" ".join(info["programs"])}", not '
                 f'{os.path.relpath(suite_file)} (rebuild the initramfs)')
    for e in info['errors']:
        fail(f'suite {args.suite}: {e}')
    if not info['begin'] or not info['end']:
        fail(f'suite {args.suite}: did not run to its end')
    if args.timed_out:
        fail(f'suite {args.suite}: guest timed out')

    if skips is not None:
        for e in skips.entries:
            if not e[3]:
                note(f'expected skip did not happen: {e[0]}: {e[1]} '
                     f'({os.path.relpath(skips.path)})')

    if not args.no_console:
        lines, kunit = parse_console(console)
        # KUnit on the console: counted by the program that reports it; a
        # failed case no program reported fails here.
        for k in kunit:
            if k['ok'] or f'{k["suite"]}: {k["case"]}' in kunit_seen:
                continue
            fail(f'kunit: not ok {k["suite"]}: {k["case"]} (console)')
        reports = console_reports(console, load_patterns())
        stamp = {l: t for t, l in lines}
        for l in reports[:20]:
            fail(f'console: {l.strip()}{when(stamp.get(l), progs)}')
        if len(reports) > 20:
            fail(f'console: {len(reports) - 20} more bad lines')
        if not any(l.strip() for l in console):
            fail('console: empty console log')
        # The kernel's taint as a backstop for lost console lines.
        prev = info['taint']
        for prog in progs:
            if prog.taint is None:
                continue
            new = prog.taint & ~(prev or 0) if prev is not None else 0
            prev = prog.taint
            bits = [TAINTS[b] for b in sorted(TAINTS) if new & (1 << b)]
            if bits and not reports:
                fail(f'{prog.name}: the kernel got tainted {", ".join(bits)} '
                     'while it ran, with no report on the console')

    # The last lines of each failed program's own output.
    for prog in progs:
        if prog.tail and any(k.startswith(prog.name + ': ')
                             for k in res['failures']):
            res['output'][prog.name] = prog.tail
    with open(args.out + '.summary', 'w') as f:
        json.dump(res, f, indent=1)
    for k in res['known']:
        print(f'  known stock failure (skipped): {k}')
    for k in res['notes']:
        print(f'  note: {k}')
    shown = set()
    for i, k in enumerate(res['failures']):
        print(f'  FAIL {k}')
        name = k.split(': ', 1)[0]
        last = i + 1 == len(res['failures']) or \
            not res['failures'][i + 1].startswith(name + ': ')
        if last and name in res['output'] and name not in shown:
            shown.add(name)
            for line in res['output'][name]:
                print(f'    | {line}')
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


def scan_console(path):
    if not os.path.exists(path):
        print(f'check-results: no console log {path}', file=sys.stderr)
        return 2
    reports = console_reports(read_lines(path), load_patterns())
    for l in reports:
        print(l)
    return 1 if reports else 0


def write_skips(args):
    out = read_lines(args.write_skips)
    if not out:
        print(f'check-results: no output log {args.write_skips}', file=sys.stderr)
        return 2
    info, progs = parse_out(out)
    old = Skips(args.expected_skips) if args.expected_skips and \
        os.path.exists(args.expected_skips) else None
    tag = os.path.basename(args.expected_skips or args.write_skips)
    tag = re.sub(r'\.(txt|out)$', '', tag)
    lines, seen = [], set()
    for prog in progs:
        for text, listed, reason in skip_texts(prog):
            e = old.match(prog.name, text) if old else None
            if e is not None:
                key = id(e)
                line = e[2]
                e[3] += 1
            else:
                key = (prog.name, listed)
                line = f'{prog.name}: {listed}' + (f'  # {reason}' if reason else '')
            if key not in seen:
                seen.add(key)
                lines.append(line)
    print(f'# Expected skips of the {tag} runs: "program: text  # reason", '
          'one a line.')
    print('# A skip is expected when its program matches (a shell pattern) '
          'and the text')
    print('# is part of its test point (the line after "ok N"; "1..0" for a '
          'program')
    print('# that skips as a whole). tests/check-results.py fails a run on a '
          'skip')
    print('# that is not listed and reports a listed one that did not happen.')
    print(f'# Made by tests/expected-skips/update.sh from {tag}.out; edit the '
          'reasons,')
    print('# the script keeps the lines that still match.')
    for l in lines:
        print(l)
    if old:
        for e in old.entries:
            if not e[3]:
                print(f'update: {tag}: dropped "{e[2].strip()}" (no such skip '
                      'in this run)', file=sys.stderr)
    bad = [p.name for p in progs if not p.ended]
    if not info['end'] or bad:
        print(f'update: {tag}: the run did not finish: skips of the programs '
              'that did not run are missing', file=sys.stderr)
    nfail = sum(1 for p in progs for q in p.points if not q['ok'])
    if nfail:
        print(f'update: {tag}: the run had {nfail} failed test point(s); '
              'check the list', file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console')
    ap.add_argument('--out')
    ap.add_argument('--suite', default='?')
    ap.add_argument('--suite-file',
                    help='the suite file that declares the programs '
                    '(default tests/guest/suites/SUITE)')
    ap.add_argument('--baseline')
    ap.add_argument('--expected-skips', metavar='LIST',
                    help='expected-skip list (tests/expected-skips/TAG.txt)')
    ap.add_argument('--strict-skips', action='store_true',
                    help='fail when the expected-skip list does not exist')
    ap.add_argument('--timed-out', action='store_true')
    ap.add_argument('--no-console', action='store_true',
                    help='host-side results: there is no console log')
    ap.add_argument('--total', nargs='+')
    ap.add_argument('--scan-console', metavar='CONSOLE')
    ap.add_argument('--write-skips', metavar='OUT')
    a = ap.parse_args()
    if a.total:
        return total(a.total)
    if a.scan_console:
        return scan_console(a.scan_console)
    if a.write_skips:
        return write_skips(a)
    if not a.out:
        ap.error('--out is required')
    return judge(a)


if __name__ == '__main__':
    sys.exit(main())
