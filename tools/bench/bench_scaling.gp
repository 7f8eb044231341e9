# SPDX-License-Identifier: MIT
# bench_scaling.gp - the scaling plot of the benchmark report: operations per
# second against CPUs, one line per implementation, one panel per benchmark
# (refcount, convoy, pathwalk), error bars from the min and max of trials;
# each line has its own marker and dash pattern as well as its colour.
#
# Run by tools/bench/bench_report.py, which writes the data file (one gnuplot index
# block per benchmark and implementation: cpus ops_per_sec min max) and sets:
#   datafile outfile term maxcpus npanels
#   bench<P> first<P> last<P> titles<P>   for each panel P = 1 .. npanels:
#       its name, its first and last index block, the implementations' names
#   mfirst<P> mlast<P> mcolours<P>        the scaling model's curves of panel P
#       (tools/bench/scaling_model.py; none when mfirst > mlast), dashed, each in the
#       colour of the measured line it predicts (its number in titles<P>)
# The y axis is logarithmic: under emulation or overcommitted vCPUs the
# implementations differ by orders of magnitude.

if (!exists("npanels")) {
	print "bench_scaling.gp: run it through tools/bench/bench_report.py, which sets its variables"
	exit status 1
}

set terminal @term size 560 * npanels, 560 noenhanced
set output outfile
set logscale y
set grid
set key below
set xlabel "CPUs"
set ylabel "operations per second (log scale)"
set format y "%.0s%c"
if (maxcpus <= 16) {
	set xtics 1
	set xrange [0.5:maxcpus + 0.5]
} else {
	set logscale x 2
}
if (npanels > 1) {
	set multiplot layout 1, npanels
}
do for [p = 1:npanels] {
	first = value(sprintf("first%d", p))
	last = value(sprintf("last%d", p))
	titles = value(sprintf("titles%d", p))
	mfirst = value(sprintf("mfirst%d", p))
	mlast = value(sprintf("mlast%d", p))
	mcolours = value(sprintf("mcolours%d", p))
	set title value(sprintf("bench%d", p))
	# A line's colour, marker and dash pattern all change with it: 12 lines stay apart
	# in grey print and for a reader who cannot tell the colours apart.
	plot for [i = first:last] datafile index i using 1:2:3:4 with yerrorlines \
		linecolor (i - first + 1) pointtype (i - first + 1) pointsize 1.2 \
		dashtype 1 + (i - first) % 5 title word(titles, i - first + 1), \
		for [i = mfirst:mlast] datafile index i using 1:2 with lines dashtype (4, 8) linewidth 2 \
		linecolor int(word(mcolours, i - mfirst + 1)) \
		title "model: ".word(titles, int(word(mcolours, i - mfirst + 1)))
}
if (npanels > 1) {
	unset multiplot
}
