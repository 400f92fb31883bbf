# SPDX-License-Identifier: GPL-2.0
# gnuplot -e "dir='OUT'; which='rt256|press|press-apps|latency|skew'" bench/plots.gp
# gnuplot -e "dir='OUT'; which='share|dram'; name='share-global'; wl='press-global'" bench/plots.gp
# One benchmark plot from OUT/data, written to OUT/NAME.png (NAME is WHICH
# unless given; a curve reads OUT/data/NAME.dat). collect.py calls it once
# per plot, and only for plots whose workloads ran, so a plot without data
# does not stop the others.
set terminal pngcairo size 900,500 noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -20
if (!exists('name')) name = which
if (!exists('wl')) wl = 'press-rand'
# columns of a curve file (second, then one per configuration): 'for
# [i=2:*]' would stop at the first configuration without a sample
if (!exists('ncol')) ncol = 2
# one colour and point type per configuration, fixed by its column: a
# curve without a sample must not shift the others' colours, and the
# ninth configuration must not reuse the first one's colour
set linetype 9 lc rgb 'dark-orange'
set linetype 10 lc rgb 'dark-grey'
set output dir.'/'.name.'.png'

if (which eq 'rt256') {
	set title '256 MiB THP round trip: time relative to stock swap on pmem (TCG; lower is better)'
	set ylabel 'ratio to stock-pmem'
	plot dir.'/data/rt.dat' using 2:xtic(1) title 'swap-out', '' using 3 title 'read-back', '' using 4 title 'write-back'
}
if (which eq 'press') {
	set style histogram errorbars gap 1 lw 1
	set title 'time to finish under an equal memcg budget (TCG; lower is better; bars: min-max)'
	set yrange [0:*]
	set ylabel 'seconds (median)'
	plot dir.'/data/press.dat' using 2:3:4:xtic(1) title 'usemem seq', '' using 5:6:7 title 'usemem rand', '' using 8:9:10 title 'stress-ng vm'
}
if (which eq 'press-apps') {
	set style histogram errorbars gap 1 lw 1
	set title 'global pressure, Redis, moving hot set: time to finish (TCG; lower is better; bars: min-max)'
	set yrange [0:*]
	set ylabel 'seconds (median)'
	plot dir.'/data/press-apps.dat' using 2:3:4:xtic(1) title 'press-global', '' using 5:6:7 title 'press-redis', '' using 8:9:10 title 'press-shift'
}
if (which eq 'latency') {
	set logscale y
	set title '256 MiB read-back: latency of faulting touches (>= 20 us; TCG)'
	set ylabel 'microseconds'
	plot dir.'/data/latency.dat' using 2:xtic(1) title 'p50', '' using 3 title 'p99'
}
if (which eq 'share') {
	set style data linespoints
	set title wl.' under memory pressure: THP share of anonymous memory'
	set ylabel 'anon_thp / anon, %'
	set xlabel 'second'
	set xtics norotate
	set yrange [0:100]
	plot for [i=2:ncol] dir.'/data/'.name.'.dat' using 1:i title columnhead(i) lt (i - 1) pt (i - 1)
}
if (which eq 'dram') {
	set style data linespoints
	set title wl.' under memory pressure: memcg DRAM (no zram pool, no pmem)'
	set ylabel 'memory.current, kB'
	set xlabel 'second'
	set xtics norotate
	plot for [i=2:ncol] dir.'/data/'.name.'.dat' using 1:i title columnhead(i) lt (i - 1) pt (i - 1)
}
if (which eq 'skew') {
	set style data linespoints
	set title 'skewed access (10 % hot) in a memcg at half the working set (TCG)'
	set ylabel 'MiB/s'
	set xlabel 'second'
	set xtics norotate
	set logscale y
	plot for [i=2:ncol] dir.'/data/skew.dat' using 1:i title columnhead(i) lt (i - 1) pt (i - 1)
}
