# SPDX-License-Identifier: MIT
# bench_scaling.gp - the scaling plot of the benchmark report: operations per
# second against CPUs, one panel per benchmark (refcount, convoy, pathwalk)
# over the counts the log measured, then one panel for the scaling model past
# them.  Measured lines are solid with a marker; the model's are dashed and
# unmarked, each in the colour of the measured line it predicts.  Every line
# of a panel has its own colour (16 set apart below) and its own marker, so 12
# lines stay apart in grey print and for a reader who cannot tell colours apart.
#
# Run by tools/bench/bench_report.py, which writes the data file (one gnuplot index
# block per benchmark and implementation: cpus ops_per_sec min max) and sets:
#   datafile outfile term maxcpus npanels projectmax
#   bench<P> first<P> last<P> titles<P>   for each panel P = 1 .. npanels:
#       its name, its first and last index block, the implementations' names
#   mfirst<P> mlast<P> mcolours<P>        the scaling model's curves of panel P over the
#       measured counts (tools/bench/scaling_model.py; none when mfirst > mlast), each
#       in the colour of the measured line it predicts (its number in titles<P>)
#   pfirst plast ptitles pcolours         the projection panel's curves, 1 to projectmax
#       CPUs, their titles and the colours of the measured lines they extend (no panel
#       when pfirst > plast)
# The y axis is logarithmic: under emulation or overcommitted vCPUs the
# implementations differ by orders of magnitude.

if (!exists("npanels")) {
	print "bench_scaling.gp: run it through tools/bench/bench_report.py, which sets its variables"
	exit status 1
}

colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf " .\
	"#7f7f7f #bcbd22 #000080 #800000 #008080 #ff00ff #556b2f #000000"
do for [i = 1:16] {
	set linetype i linecolor rgb word(colours, i) linewidth 1.5
}
set linetype cycle 16

projected = pfirst <= plast
panels = npanels + (projected ? 1 : 0)
set terminal @term size 560 * panels, 820 noenhanced
set output outfile
set logscale y
set grid
set key below
set ylabel "operations per second (log scale)"
set format y "%.0s%c"
if (panels > 1) {
	set multiplot layout 1, panels
}
do for [p = 1:npanels] {
	first = value(sprintf("first%d", p))
	last = value(sprintf("last%d", p))
	titles = value(sprintf("titles%d", p))
	mfirst = value(sprintf("mfirst%d", p))
	mlast = value(sprintf("mlast%d", p))
	mcolours = value(sprintf("mcolours%d", p))
	set title value(sprintf("bench%d", p)) . ": measured (solid), model (dashed)"
	set xlabel "CPUs"
	if (maxcpus <= 16) {
		unset logscale x
		set xtics 1
		set xrange [0.5:maxcpus + 0.5]
	} else {
		set logscale x 2
		set xtics auto
		set xrange [1:maxcpus * 1.1]
	}
	plot for [i = first:last] datafile index i using 1:2:3:4 with yerrorlines \
		linetype (i - first + 1) pointtype (i - first) % 15 + 1 pointsize 1.3 \
		dashtype 1 title word(titles, i - first + 1), \
		for [i = mfirst:mlast] datafile index i using 1:2 with lines dashtype (10, 6) \
		linewidth 2 linetype int(word(mcolours, i - mfirst + 1)) \
		title "model: ".word(titles, int(word(mcolours, i - mfirst + 1)))
}
if (projected) {
	set title sprintf("the model past the machine: 1 to %d CPUs (not measured)", projectmax)
	set logscale x 2
	set xtics auto
	set xrange [1:projectmax]
	set arrow 1 from maxcpus, graph 0 to maxcpus, graph 1 nohead dashtype 3 linecolor "gray40"
	set label 1 sprintf(" measured up to %d", maxcpus) at maxcpus, graph 0.05 textcolor "gray40"
	plot for [i = pfirst:plast] datafile index i using 1:2 with lines dashtype (10, 6) \
		linewidth 2 linetype int(word(pcolours, i - pfirst + 1)) \
		title "model: ".word(ptitles, i - pfirst + 1)
	unset arrow 1
	unset label 1
}
if (panels > 1) {
	unset multiplot
}
