#!/usr/bin/env python3
"""Redis instructions per lock cycle of script variants, counted by valgrind's callgrind (issue 46's decomposition).

Usage: python3 lock-benchmarks/price-cycle.py VARIANT... (N=2000 cycles by default, env N); each VARIANT is
  fenced          the fenced floor: SET NX PX + INCR in one script, compare-and-delete (as the benchmark's)
  minhash         the cheapest single-hash lock with a fencing token kept after release: HMGET owner/fence, HSET,
                  PEXPIRE; release HGET, HDEL, PEXPIRE (two arguments a call)
  minhash-args    the same, sent as many keys and arguments in all as distlock's two calls (21)
  DIR[:NAME=V,..] distlock's acquire.lua and release.lua read from DIR (lock-core's script folder, or a modified copy),
                  includes expanded and the ACL guard left out as ScriptLayout does; NAME=V writes argument NAME into
                  the text as a constant instead of sending it
  renew:DIR       instructions per renewed lock instead: 10,000 locks granted by DIR's acquire.lua (a 60 s watched
                  lease) renewed by its renew.lua to 120 s, in batches of 100, one batch at a time
  renew:redisson  the same for Redisson 4.7's renewal script (HEXISTS and PEXPIRE per lock) on 10,000 hashes of
                  Redisson's shape (RENEWED_LOCKS=N in the environment: N locks
                  instead of 10,000, the leases N/10,000 times as long)
Each variant runs N cycles (one thread, one key, the watchdog's lease) to warm up, then N counted between
callgrind_control -z and -d on Debian's /usr/bin/redis-server under valgrind. User space only (see
docs/benchmarks.md, "Instructions per cycle"); repeated counts agree within about 3%.
"""
import os, re, socket, subprocess, sys, time, glob, tempfile

DECL = re.compile(r'^-- ARGV\[(\d+)(\.\.\.)?\]\s+([A-Z_]+)\b')

def expand(d, name, included, guard):
    included.add(name)
    text = open(os.path.join(d, name)).read()
    out = []
    for line in text.split('\n'):
        s = line.lstrip()
        if not s.startswith('--#include '):
            out.append(line); continue
        f = s[len('--#include '):].split(' ', 1)[0]
        if not guard and f == 'acl-guard.lua':
            f = 'acl-unchecked.lua'
        if f not in included:
            nested = len(s) < len(line)
            out.append(expand(d, f, set(included) if nested else included, guard).rstrip())
    return '\n'.join(out)

def declared(text):
    names = []
    for line in text.split('\n'):
        if not line.startswith('--') or line.startswith('--#'):
            break
        m = DECL.match(line)
        if m:
            names.append(m.group(3))
    return names

def load(d, name, consts=None):
    """consts: {ARGNAME: value} baked in as literals (removed from ARGV)."""
    text = expand(d, name, set(), False)
    names = declared(text)
    consts = consts or {}
    argnames = [n for n in names if n not in consts]
    parts = []
    if argnames:
        parts.append('local ' + ', '.join(argnames) + ' = ' + ', '.join('ARGV[%d]' % (i + 1) for i in range(len(argnames))))
    for k, v in consts.items():
        if k in names:
            parts.append("local %s = '%s'" % (k, v))
    return text.replace('--#arguments', '\n'.join(parts)), argnames

def resp(*args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)

class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port)); self.f = self.s.makefile('rb')
    def cmd(self, *args):
        self.s.sendall(resp(*args)); return self.read()
    def read(self):
        line = self.f.readline()
        t, rest = line[:1], line[1:-2]
        if t == b'+': return rest.decode()
        if t == b'-': raise RuntimeError(rest.decode())
        if t == b':': return int(rest)
        if t == b'$':
            n = int(rest)
            if n < 0: return None
            data = self.f.read(n + 2); return data[:-2].decode()
        if t == b'*':
            n = int(rest); return [self.read() for _ in range(n)]
        raise RuntimeError(line)

OWNER = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'
FENCED_ACQ = """local ok = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
if not ok then return 0 end
return redis.call('INCR', KEYS[2])"""
FENCED_REL = """if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0"""

MINHASH_ACQ = """local s = redis.call('HMGET', KEYS[1], 'owner', 'fence')
if s[1] then return -1 - redis.call('PTTL', KEYS[1]) end
local t = (tonumber(s[2]) or 0) + 1
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'fence', t)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return t"""
MINHASH_REL = """if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'owner')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0"""

def start(port, dumps):
    p = subprocess.Popen(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + dumps + '/cg.%p',
                          '/usr/bin/redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                          '--appendonly', 'no'], stdout=open(dumps + '/log', 'w'), stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            c = Conn(port); c.cmd('PING'); return p, c
        except Exception:
            time.sleep(0.1)
    raise RuntimeError('no redis')

def count(p, dumps, fn, n):
    fn(n)  # warm
    subprocess.run(['callgrind_control', '-z', str(p.pid)], check=True, capture_output=True)
    fn(n)
    before = set(glob.glob(dumps + '/cg.*'))
    subprocess.run(['callgrind_control', '-d', str(p.pid)], check=True, capture_output=True)
    time.sleep(0.5)
    new = sorted(set(glob.glob(dumps + '/cg.*')) - before, key=os.path.getmtime)
    total = 0
    for line in open(new[-1]):
        if line.startswith('summary:') or line.startswith('totals:'):
            total = int(line.split()[1])
    return total / n

REDISSON_RENEW = ("local result = {} for i = 1, #KEYS, 1 do if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1) then "
                  "redis.call('pexpire', KEYS[i], ARGV[1]); table.insert(result, 1); else table.insert(result, 0); "
                  "end; end; return result;")
REDISSON_FIELD = '7e5b2f0c-93a1-4c1e-8f52-6d1b0a9c3e47:1'  # Redisson's lock name: client UUID ':' thread id
RENEWED_LOCKS, RENEWAL_BATCH = int(os.environ.get('RENEWED_LOCKS', '10000')), 100
# the lease granted and renewed, long enough for valgrind to set up RENEWED_LOCKS locks before the first renewal
GRANTED_MS = 60_000 * max(1, RENEWED_LOCKS // 10_000)

def renewal(c, vi, source):
    """A function that renews RENEWED_LOCKS locks (set up here) n times over, in batches."""
    if source == 'redisson':
        sha, field = c.cmd('SCRIPT', 'LOAD', REDISSON_RENEW), REDISSON_FIELD
        keys = ['renewal-redisson-%d' % i for i in range(RENEWED_LOCKS)]
        for k in keys:
            c.cmd('HSET', k, field, '1'); c.cmd('PEXPIRE', k, GRANTED_MS)
    else:
        acq, acqn = load(source, 'acquire.lua')
        ren, _ = load(source, 'renew.lua')
        a, sha, field = c.cmd('SCRIPT', 'LOAD', acq), c.cmd('SCRIPT', 'LOAD', ren), OWNER
        keys = ['distlock:{renewal-distlock%d-%d}:lock' % (vi, i) for i in range(RENEWED_LOCKS)]
        vals = {'OWNER_TOKEN': OWNER, 'LEASE_MILLIS': str(GRANTED_MS), 'WATCHDOG': '1', 'REENTRY': '0',
                'RESTART_GRACE_MILLIS': '30000', 'WAITING': '0'}
        for i, k in enumerate(keys):
            vals['HOLD_ID'] = str(i + 1)
            if c.cmd('EVALSHA', a, 2, k, 'distlock:restart-grace', *[vals[x] for x in acqn]) <= 0:
                raise RuntimeError('not granted')
    def fn(rounds):
        for _ in range(rounds):
            for b in range(0, RENEWED_LOCKS, RENEWAL_BATCH):
                ks = keys[b:b + RENEWAL_BATCH]
                r = c.cmd('EVALSHA', sha, len(ks), *ks, 2 * GRANTED_MS, *([field] * len(ks)))
                if any(x != 1 for x in r):
                    raise RuntimeError('not renewed: %r' % r[:3])
    return fn

def main():
    variants = sys.argv[1:]
    n = int(os.environ.get('N', '2000'))
    dumps = tempfile.mkdtemp(prefix='price')
    port = 23000 + os.getpid() % 1000
    p, c = start(port, dumps)
    c.cmd('SET', 'distlock:restart-grace', '1')
    try:
        results = []
        for vi, v in enumerate(variants):
            if v.startswith('renew:'):
                results.append((v + ' (per renewed lock)', count(p, dumps, renewal(c, vi, v[len('renew:'):]), 1)
                                / RENEWED_LOCKS))
                continue
            if v.startswith('minhash'):
                a = c.cmd('SCRIPT', 'LOAD', MINHASH_ACQ); r = c.cmd('SCRIPT', 'LOAD', MINHASH_REL)
                extra = ['x'] * (5 if v == 'minhash-args' else 0)
                def fn(k, a=a, r=r, extra=extra):
                    for i in range(k):
                        t = c.cmd('EVALSHA', a, 1, 'distlock:{mh}:lock', OWNER, 30000, *extra)
                        if t <= 0: raise RuntimeError(t)
                        x = c.cmd('EVALSHA', r, 1, 'distlock:{mh}:lock', OWNER, 600000, *(extra + extra))
                        if x != 1: raise RuntimeError(x)
                results.append((v, count(p, dumps, fn, n))); continue
            if v == 'fenced':
                a = c.cmd('SCRIPT', 'LOAD', FENCED_ACQ); r = c.cmd('SCRIPT', 'LOAD', FENCED_REL)
                def fn(k, a=a, r=r):
                    for i in range(k):
                        t = c.cmd('EVALSHA', a, 2, 'fk', 'fk:fence', OWNER, 30000)
                        c.cmd('EVALSHA', r, 1, 'fk', OWNER)
                results.append((v, count(p, dumps, fn, n))); continue
            d, _, consts = v.partition(':')
            cs = dict(kv.split('=') for kv in consts.split(',')) if consts else {}
            acq, acqn = load(d, 'acquire.lua', cs)
            rel, reln = load(d, 'release.lua', cs)
            a = c.cmd('SCRIPT', 'LOAD', acq); r = c.cmd('SCRIPT', 'LOAD', rel)
            vals = {'OWNER_TOKEN': OWNER, 'LEASE_MILLIS': '30000', 'WATCHDOG': '1', 'REENTRY': '0',
                    'RESTART_GRACE_MILLIS': '30000', 'WAITING': '1', 'KEEP_HELD_MILLIS': '0',
                    'TOKEN_RETENTION_MILLIS': '600000', 'CHANNEL': 'distlock:{k%d}:released' % vi,
                    'PUBLISH_COMMAND': 'PUBLISH', 'MESSAGE': 'client-7f3a9c21', 'PUBLISH_ONLY_TO_WAITERS': '1'}
            key = 'distlock:{k%d}:lock' % vi
            state = {'hold': 1000}
            def fn(k, a=a, r=r, acqn=acqn, reln=reln, key=key):
                for i in range(k):
                    state['hold'] += 1
                    vals['HOLD_ID'] = str(state['hold'])
                    t = c.cmd('EVALSHA', a, 2, key, 'distlock:restart-grace', *[vals[x] for x in acqn])
                    if not isinstance(t, int) or t <= 0: raise RuntimeError('acquire %r' % t)
                    vals['FENCING_TOKEN'] = str(t)
                    x = c.cmd('EVALSHA', r, 2, key, key + ':freed', *[vals[y] for y in reln])
                    if x != 1: raise RuntimeError('release %r' % x)
            results.append((v, count(p, dumps, fn, n)))
        for v, ir in results:
            print('%-60s %10.0f' % (v, ir))
    finally:
        p.terminate(); p.wait()

if __name__ == '__main__':
    main()
