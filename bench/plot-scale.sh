#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# plot-scale.sh DAT PNG: the start-up/memory plot of bench-scale.sh (log-log:
# linear growth shows as parallel straight lines).
dat=$1 png=$2
gnuplot <<GP
set terminal pngcairo size 1000,420 font ",10" noenhanced
set output "$png"
set multiplot layout 1,2 title "mod_tack at scale ($(date +%Y-%m-%d), $(nproc) cores)"
set logscale xy
set xlabel "name-based SSL vhosts"
set key top left
set grid
set ylabel "milliseconds"
set title "start-up and graceful restart"
plot "$dat" using 1:2 with linespoints title "start-up, without TACK", \
     "$dat" using 1:3 with linespoints title "start-up, with TACK", \
     "$dat" using 1:4 with linespoints dt 2 title "graceful, without TACK", \
     "$dat" using 1:5 with linespoints dt 2 title "graceful, with TACK"
set ylabel "MiB (VmRSS)"
set title "memory"
plot "$dat" using 1:6 with linespoints title "parent, without TACK", \
     "$dat" using 1:7 with linespoints title "parent, with TACK", \
     "$dat" using 1:8 with linespoints dt 2 title "child, without TACK", \
     "$dat" using 1:9 with linespoints dt 2 title "child, with TACK"
unset multiplot
GP
