# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/data/amx/ptrace-setregset.txt from ../shared/hw/intel-spr-amx-kvm/ptrace-setregset-amx.txt.

Every PTRACE_SETREGSET NT_X86_XSTATE the Sapphire Rapids guest answered, one
line each: the tracee's case (no-perm, perm-unused, tiles-used), iov_len,
XSTATE_BV, the answer (0, EINVAL, EFAULT), then the test's name. Usage:

    python3 scripts/ptrace-fixture.py ../shared/hw/intel-spr-amx-kvm/ptrace-setregset-amx.txt \
        > tests/data/amx/ptrace-setregset.txt
"""
import hashlib
import re
import sys

CASES = {'(i)': 'no-perm', '(ii)': 'perm-unused', '(iii)': 'tiles-used'}
LINE = re.compile(r'^\s+(SETREGSET.*?)\s*\|\s*iov_len (\d+) XSTATE_BV (0x[0-9a-f]+) -> '
                  r'(0|-1 errno \d+ \((\w+)\))')


def main(path):
    raw = open(path, 'rb').read()
    case, out = None, []
    for line in raw.decode().splitlines():
        m = re.match(r'^## (\(i+\))', line)
        if m:
            case = CASES[m.group(1)]
            continue
        m = LINE.match(line)
        if not m:
            continue
        if not case:
            sys.exit('a SETREGSET line before any case: %s' % line)
        out.append('%s %s %s %s %s' % (case, m.group(2), m.group(3), m.group(5) or '0',
                                        re.sub(r'\s+', ' ', m.group(1))))
    if len(out) != 30:
        sys.exit('%d SETREGSET lines, expected 30 (10 per case)' % len(out))
    print('# PTRACE_SETREGSET NT_X86_XSTATE answers of the Sapphire Rapids KVM guest (Linux 6.18.44,')
    print('# XCR0 0x600e7, 2026-12-06), by the tracee\'s case. Derived by scripts/ptrace-fixture.py from')
    print('# ../shared/hw/intel-spr-amx-kvm/ptrace-setregset-amx.txt (sha256 %s).' %
          hashlib.sha256(raw).hexdigest())
    print('# columns: tracee (no-perm: never asked for AMX; perm-unused: ARCH_REQ_XCOMP_PERM, no tile')
    print('# used; tiles-used: tiles live at the stop) | iov_len | XSTATE_BV | answer (0, EINVAL, EFAULT) | test')
    for o in out:
        print(o)


if __name__ == '__main__':
    main(sys.argv[1])
