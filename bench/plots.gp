# SPDX-License-Identifier: GPL-2.0
# gnuplot -e "dir='OUT'; which='rt256|press|skew'" bench/plots.gp
# One benchmark plot from OUT/data (collect.py calls it once per plot, so
# a plot without data does not stop the others).
set terminal pngcairo size 900,500 noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -20
set output dir.'/'.which.'.png'

if (which eq 'rt256') {
	set title '256 MiB THP round trip: time relative to stock swap on pmem (TCG; lower is better)'
	set ylabel 'ratio to stock-pmem'
	plot dir.'/data/rt.dat' using 2:xtic(1) title 'swap-out', '' using 3 title 'read-back', '' using 4 title 'write-back'
}
if (which eq 'press') {
	set title 'memcg at half the working set: throughput relative to stock swap on pmem (TCG; higher is better)'
	set ylabel 'ratio to stock-pmem'
	plot dir.'/data/press.dat' using 2:xtic(1) title 'usemem seq', '' using 3 title 'usemem rand'
}
if (which eq 'skew') {
	set style data linespoints
	set title 'skewed access (10 % hot) in a memcg at half the working set (TCG)'
	set ylabel 'MiB/s'
	set xlabel 'second'
	set xtics norotate
	set logscale y
	plot for [i=2:*] dir.'/data/skew.dat' using 1:i title columnhead(i)
}
