# SPDX-License-Identifier: MIT
# bench_c2c.gp - the c2c heatmap of the benchmark report: the one-way latency
# between every measured pair of CPUs, row CPU against column CPU.
#
# Run by tools/bench/bench_c2c.py, which writes the matrix (NaN where a pair was not
# measured) and sets: datafile outfile term ncpus labels (the CPU numbers, in
# the matrix's order, space-separated).

if (!exists("ncpus")) {
	print "bench_c2c.gp: run it through tools/bench/bench_report.py, which sets its variables"
	exit status 1
}

size = ncpus < 16 ? 480 : ncpus < 64 ? 720 : 960
set terminal @term size size + 120, size noenhanced
set output outfile
set title "one-way cache-line latency, ns (median round trip / 2)"
set xlabel "CPU"
set ylabel "CPU"
set size ratio -1
set palette defined (0 "white", 1 "yellow", 2 "orange", 3 "red", 4 "dark-red")
set cblabel "ns"
set xrange [-0.5:ncpus - 0.5]
set yrange [ncpus - 0.5:-0.5]
step = ncpus <= 32 ? 1 : ncpus <= 64 ? 4 : 16
set xtics () ; set ytics ()
do for [i = 1:ncpus:step] {
	set xtics add (word(labels, i) i - 1)
	set ytics add (word(labels, i) i - 1)
}
plot datafile matrix with image notitle
