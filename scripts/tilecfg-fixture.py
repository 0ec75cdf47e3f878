# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/data/amx/tilecfg-truth.txt from ../shared/hw/intel-spr-amx-kvm/tilecfg-truth.txt.

The 64 TILECFG variants the Sapphire Rapids guest put through LDTILECFG and
XRSTOR, one line each: the 64 bytes in hex, what LDTILECFG did (ok or gp),
XINUSE bit 17 after the XRSTOR (1: the configuration loaded, 0: TILECFG went
to init), then the variant's name. Usage:

    python3 scripts/tilecfg-fixture.py ../shared/hw/intel-spr-amx-kvm/tilecfg-truth.txt \
        > tests/data/amx/tilecfg-truth.txt
"""
import hashlib
import re
import sys


def full_config():
    b = bytearray(64)
    b[0] = 1
    for t in range(8):
        b[16 + 2 * t] = 64
        b[48 + t] = 16
    return b


def main(path):
    raw = open(path, 'rb').read()
    out = []
    for line in raw.decode().splitlines():
        if line.startswith('#') or line.startswith('control:') or '|' not in line:
            continue
        f = [x.strip() for x in line.split('|')]
        name, change, ld, xr = f[0], f[1], f[2], f[3]
        b = full_config()
        if change.startswith('all 64 bytes 0'):
            b = bytearray(64)
            change = change[len('all 64 bytes 0'):].lstrip(', then')
        for m in re.finditer(r'b(\d+)=0x([0-9a-f]{2})', change):
            b[int(m.group(1))] = int(m.group(2), 16)
        if change not in ('none', '') and not re.search(r'b\d+=', change):
            sys.exit('cannot read the change of "%s": %s' % (name, change))
        ldr = 'gp' if ld.startswith('ldtilecfg: gp') else 'ok'
        m = re.match(r'xrstor: ok, XINUSE17 ([01])', xr)
        if not m:
            sys.exit('cannot read the XRSTOR column of "%s"' % name)
        out.append('%s %s %s %s' % (b.hex(), ldr, m.group(1), name))
    if len(out) != 64:
        sys.exit('%d variants, expected 64' % len(out))
    print('# TILECFG variants, LDTILECFG and XRSTOR as the CPU judged them (Sapphire Rapids KVM guest,')
    print('# 2026-12-06). Derived by scripts/tilecfg-fixture.py from ../shared/hw/intel-spr-amx-kvm/')
    print('# tilecfg-truth.txt (sha256 %s).' % hashlib.sha256(raw).hexdigest())
    print('# columns: the 64 bytes (hex) | LDTILECFG ok or gp (#GP) | XINUSE bit 17 after XRSTOR with')
    print('# RFBM 0x20000, XSTATE_BV 0x20000 (1 loaded, 0 TILECFG in init; XRSTOR never faulted) | name')
    for o in out:
        print(o)


if __name__ == '__main__':
    main(sys.argv[1])
