#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Every memcg OOM report in bench raw logs: the allocation (order, gfp),
# the call chain, the memcg usage, swap use and memory.stat at the kill,
# and the workload it hit (from the memcg_oom_kill lines of the .out).
# python3 bench/oom-reports.py bench/results/X/raw ...   (EXTRA=1: reclaim counters)
import re,sys,glob,os
WL=["press-seq","press-rand","press-stress","press-stress-thp","skew","press-shift","press-global","press-redis"]
SKIP={'dump_stack_lvl','dump_header','oom_kill_process','out_of_memory','mem_cgroup_out_of_memory','entry_SYSCALL_64_after_hwframe','do_syscall_64','asm_exc_page_fault','handle_mm_fault'}
def parse(d):
    rows=[]
    for con in sorted(glob.glob(d+'/*.console')):
        base=os.path.basename(con)[:-8]; cfg,run=base.rsplit('.r',1)
        out=open(con[:-8]+'.out').read()
        # sequence of workloads with kills
        seq=[]
        for m in re.finditer(r'^BENCH \S+ (\S+) \S+ memcg_oom_kill (\d+)',out,re.M):
            seq += [m.group(1)]*int(m.group(2))
        L=open(con).read().splitlines()
        i=0;k=0
        while i<len(L):
            m=re.search(r'\[\s*([\d.]+)\] (\S+) invoked oom-killer: gfp_mask=(\S+), order=(\d+)',L[i])
            if not m: i+=1; continue
            r=dict(cfg=cfg,run=run,t=m.group(1),comm=m.group(2),gfp=m.group(3),order=m.group(4))
            frames=[];st={}
            j=i+1
            while j<len(L) and 'Killed process' not in L[j] and 'invoked oom-killer' not in L[j]:
                s=L[j]
                fm=re.match(r'\[\s*[\d.]+\]\s+(\?\s+)?([A-Za-z_0-9.]+)\+0x',s)
                if fm and not fm.group(1) and fm.group(2) not in SKIP: frames.append(fm.group(2))
                mm=re.search(r'\] memory: usage (\d+)kB, limit (\d+)kB',s)
                if mm: r['use']=mm.group(1); r['lim']=mm.group(2)
                mm=re.search(r'\] swap: usage (\d+)kB, limit (\d+)kB',s)
                if mm: r['swp']=mm.group(1); r['slim']=mm.group(2)
                mm=re.match(r'\[\s*[\d.]+\] (\w+) (\d+)$',s)
                if mm: st[mm.group(1)]=int(mm.group(2))
                j+=1
            if j<len(L) and 'Killed process' in L[j]:
                km=re.search(r'Killed process (\d+) \((\S+)\).*anon-rss:(\d+)kB',L[j]); r['killed']=km.group(2)+':'+km.group(3)
            r['frames']=frames; r['st']=st
            # a global OOM (no memcg usage line) is not in memcg_oom_kill
            if 'use' in r:
                r['wl']=seq[k] if k<len(seq) else '?'; k+=1
            else:
                r['wl']='(global OOM)'
            rows.append(r); i=j
        if k!=len(seq): print('MISMATCH',con,k,len(seq),file=sys.stderr)
    return rows
MB=lambda b:'%.1f'%(b/1048576)
for d in sys.argv[1:]:
    print('##',d)
    for r in parse(d):
        s=r['st']
        print(f"{r['cfg']:15} r{r['run']} {r['wl']:16} t={r['t']:>8} {r['comm']:13} o={r['order']} {r['gfp']:10} use={r.get('use')}/{r.get('lim')} swp={r.get('swp')} anon={MB(s.get('anon',0))} thp={MB(s.get('anon_thp',0))} swc={MB(s.get('swapcached',0))} ina={MB(s.get('inactive_anon',0))} act={MB(s.get('active_anon',0))} file={MB(s.get('file',0))} inpl={MB(s.get('pmswap_inplace',0))} krn={MB(s.get('kernel',0))} killed={r.get('killed')}")
        print('     ', ' < '.join(r['frames'][:8]))

if os.environ.get('EXTRA'):
    for d in sys.argv[1:]:
        for r in parse(d):
            s=r['st']
            print(d.rstrip('/').split('/')[-2], r['cfg'], r['run'], r['wl'], *(f"{k}={s.get(k,'-')}" for k in ['pgrefill','pgdeactivate','pgactivate','pgscan','pgsteal','pgscan_khugepaged','pgsteal_khugepaged','pgmajfault','workingset_refault_anon','workingset_activate_anon','swpout_zero','thp_swpout','thp_fault_alloc','thp_collapse_alloc','slab_unreclaimable','pagetables']))
