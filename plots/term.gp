# The terminal for `out`: SVG when it ends in .svg, else PNG. Scripts set it
# with `set terminal @term size W,H font ",N"`, so one script draws both.
term = (strstrt(out, ".svg") > 0) ? "svg enhanced background rgb 'white'" : "pngcairo"
