//! The charts of the HTML reports, as inline SVG written by hand: a latency histogram with its
//! percentiles marked, grouped horizontal bars. Each series is told apart by a fill pattern and a
//! text label as well as by colour, and the colours come from the page's light or dark scheme.

use std::fmt::Write;

use super::esc;

/// Fill patterns shared by every chart on a page (defined once, in the page's first SVG).
pub const PATTERN_DEFS: &str = r#"<svg width="0" height="0" aria-hidden="true" style="position:absolute"><defs>
<pattern id="hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" class="s2"/><line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern>
<pattern id="dots" patternUnits="userSpaceOnUse" width="5" height="5"><rect width="5" height="5" class="s3"/><circle cx="2.5" cy="2.5" r="1.2" class="dot"/></pattern>
<pattern id="cross" patternUnits="userSpaceOnUse" width="6" height="6"><rect width="6" height="6" class="s4"/><path d="M0 0L6 6M6 0L0 6" class="hatch-line"/></pattern>
</defs></svg>"#;

/// The fill of series `i`: solid, hatched, dotted, cross-hatched.
pub fn series_fill(i: usize) -> &'static str {
    ["class=\"s1\"", "fill=\"url(#hatch)\"", "fill=\"url(#dots)\"", "fill=\"url(#cross)\""][i % 4]
}

/// A small legend swatch for series `i`, to put beside its name in HTML.
pub fn swatch(i: usize) -> String {
    format!(
        r#"<svg class="swatch" width="14" height="14" aria-hidden="true"><rect width="14" height="14" {} class="outline"/></svg>"#,
        series_fill(i)
    )
}

/// A vertical marker on a histogram: `p50 1.234 ms`.
pub struct Mark {
    pub label: &'static str,
    pub value: f64,
}

/// A histogram of `samples` (ms) over `[lo, hi]` with the marks drawn as labelled lines; `title`
/// names it for screen readers.
pub fn histogram(samples: &[f64], lo: f64, hi: f64, marks: &[Mark], fill: usize, title: &str) -> String {
    let frame = Frame { w: 640.0, h: 190.0, left: 44.0, right: 12.0, top: 46.0, bottom: 34.0 };
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
    let width = (hi - lo) / HISTOGRAM_BINS as f64;
    let mut counts = [0usize; HISTOGRAM_BINS];
    for &s in samples {
        let i = (((s - lo) / width).floor().max(0.0) as usize).min(HISTOGRAM_BINS - 1);
        counts[i] += 1;
    }
    let x = |v: f64| frame.left + (v - lo) / (hi - lo) * frame.plot_w();
    let mut svg = open_chart(frame.w, frame.h, title);
    histogram_axes(&mut svg, &frame, (lo, hi), counts.iter().copied().max().unwrap_or(0).max(1), &x);
    histogram_bars(&mut svg, &frame, &counts, (lo, width), fill);
    percentile_marks(&mut svg, &frame, marks, (lo, hi), &x);
    svg.push_str("</svg>");
    svg
}

/// A histogram's bins.
const HISTOGRAM_BINS: usize = 40;

/// A chart's size and margins, in SVG units.
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    fn plot_w(&self) -> f64 {
        self.w - self.left - self.right
    }

    fn plot_h(&self) -> f64 {
        self.h - self.top - self.bottom
    }

    /// The plot's floor: where the x axis is drawn.
    fn floor(&self) -> f64 {
        self.top + self.plot_h()
    }
}

/// The x axis with five latency ticks, and the tallest bar's count.
fn histogram_axes(svg: &mut String, frame: &Frame, (lo, hi): (f64, f64), tallest: usize, x: &dyn Fn(f64) -> f64) {
    let _ = write!(
        svg,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="axis"/>"#,
        frame.left,
        frame.floor(),
        frame.w - frame.right,
        frame.floor()
    );
    for i in 0..=4 {
        let v = lo + (hi - lo) * i as f64 / 4.0;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
            x(v),
            frame.floor() + 14.0,
            ms(v)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{}" class="tick" text-anchor="middle">latency (ms)</text>"#,
        frame.left + frame.plot_w() / 2.0,
        frame.h
    );
    let _ = write!(
        svg,
        r#"<text x="4" y="{:.1}" class="tick">{tallest}</text><text x="4" y="{:.1}" class="tick">runs</text>"#,
        frame.top + 8.0,
        frame.top + 20.0
    );
}

/// One bar a bin that holds a run, scaled to the tallest.
fn histogram_bars(svg: &mut String, frame: &Frame, counts: &[usize], (lo, width): (f64, f64), fill: usize) {
    let tallest = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bar_w = frame.plot_w() / counts.len() as f64;
    for (i, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let h = c as f64 / tallest * frame.plot_h();
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {} class="outline"><title>{c} runs in {}..{} ms</title></rect>"#,
            frame.left + i as f64 * bar_w,
            frame.floor() - h,
            (bar_w - 1.0).max(0.5),
            h,
            series_fill(fill),
            ms(lo + i as f64 * width),
            ms(lo + (i + 1) as f64 * width)
        );
    }
}

/// Percentile lines, labels staggered so that close ones stay readable.
fn percentile_marks(svg: &mut String, frame: &Frame, marks: &[Mark], (lo, hi): (f64, f64), x: &dyn Fn(f64) -> f64) {
    for (i, m) in marks.iter().enumerate() {
        let mx = x(m.value.clamp(lo, hi));
        let dash = ["", r#" stroke-dasharray="6 3""#, r#" stroke-dasharray="2 2""#][i % 3];
        let _ = write!(
            svg,
            r#"<line x1="{mx:.1}" y1="{:.1}" x2="{mx:.1}" y2="{:.1}" class="mark"{dash}/>"#,
            frame.top - 4.0 - 13.0 * (i % 3) as f64,
            frame.floor()
        );
        let anchor = if mx > frame.w - 120.0 { "end" } else { "start" };
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" class="mark-label" text-anchor="{anchor}">{} {} ms</text>"#,
            if anchor == "end" { mx - 3.0 } else { mx + 3.0 },
            frame.top - 6.0 - 13.0 * (i % 3) as f64,
            m.label,
            ms(m.value)
        );
    }
}

/// One group of bars: a label and one value per series (`None`: no bar, e.g. a failed model).
pub struct BarGroup {
    pub label: String,
    pub values: Vec<Option<f64>>,
    /// Drawn in the alarm style with this note after the label (a regression).
    pub flag: Option<String>,
}

/// Grouped horizontal bars with a value at the end of each bar; `series` names each bar of a
/// group (shown in the legend the caller writes), `unit` follows each value.
pub fn bars(groups: &[BarGroup], series: &[String], unit: &str, title: &str) -> String {
    const W: f64 = 640.0;
    const LABEL_W: f64 = 170.0;
    const VALUE_W: f64 = 90.0;
    const BAR_H: f64 = 14.0;
    const GAP: f64 = 10.0;
    let per_group = series.len().max(1) as f64 * BAR_H + GAP;
    let h = groups.len() as f64 * per_group + 10.0;
    let max =
        groups.iter().flat_map(|g| g.values.iter().flatten()).fold(0.0f64, |a, &b| a.max(b)).max(f64::MIN_POSITIVE);
    let plot_w = W - LABEL_W - VALUE_W;
    let mut svg = open_chart(W, h, title);
    for (gi, group) in groups.iter().enumerate() {
        let y0 = 5.0 + gi as f64 * per_group;
        // The label, and under it the flag (a regression) in the alarm style.
        let middle = y0 + series.len() as f64 * BAR_H / 2.0 + 4.0;
        let label_y = if group.flag.is_some() { middle - 6.0 } else { middle };
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{label_y:.1}" class="bar-label" text-anchor="end">{}</text>"#,
            LABEL_W - 6.0,
            esc(&shorten(&group.label, 28))
        );
        if let Some(flag) = &group.flag {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" class="bar-label flagged" text-anchor="end">{}</text>"#,
                LABEL_W - 6.0,
                label_y + 13.0,
                esc(&shorten(flag, 28))
            );
        }
        for (si, value) in group.values.iter().enumerate() {
            let y = y0 + si as f64 * BAR_H;
            match value {
                Some(v) => {
                    let w = (v / max * plot_w).max(1.0);
                    let _ = write!(
                        svg,
                        r#"<rect x="{LABEL_W}" y="{y:.1}" width="{w:.1}" height="{:.1}" {} class="outline"><title>{}: {} {unit}</title></rect>"#,
                        BAR_H - 2.0,
                        series_fill(si),
                        esc(&series[si]),
                        num(*v)
                    );
                    let _ = write!(
                        svg,
                        r#"<text x="{:.1}" y="{:.1}" class="value">{} {unit}</text>"#,
                        LABEL_W + w + 4.0,
                        y + BAR_H - 4.0,
                        num(*v)
                    );
                }
                None => {
                    let _ = write!(
                        svg,
                        r#"<text x="{:.1}" y="{:.1}" class="value">no figure</text>"#,
                        LABEL_W + 4.0,
                        y + BAR_H - 4.0
                    );
                }
            }
        }
    }
    svg.push_str("</svg>");
    svg
}

/// One value per point of a sweep, the points evenly spaced in their order along x and joined
/// by a line; a point without a figure (it failed) is a gap, written so. The point `best` is
/// ringed and labelled. `unit` names the y axis.
pub fn line(points: &[(String, Option<f64>)], unit: &str, best: Option<usize>, title: &str) -> String {
    let frame = Frame { w: 640.0, h: 220.0, left: 64.0, right: 24.0, top: 28.0, bottom: 40.0 };
    let (step_y, ticks) = axis_ticks(points.iter().filter_map(|p| p.1).fold(0.0f64, f64::max));
    let max = step_y * ticks as f64;
    let step = frame.plot_w() / points.len().max(2).saturating_sub(1) as f64;
    let x = |i: usize| if points.len() == 1 { frame.left + frame.plot_w() / 2.0 } else { frame.left + i as f64 * step };
    let y = |v: f64| frame.floor() - v / max * frame.plot_h();
    let mut svg = open_chart(frame.w, frame.h, title);
    let _ = write!(
        svg,
        r#"<line x1="{0}" y1="{1}" x2="{0}" y2="{2:.1}" class="axis"/><line x1="{0}" y1="{2:.1}" x2="{3:.1}" y2="{2:.1}" class="axis"/>"#,
        frame.left,
        frame.top,
        frame.floor(),
        frame.w - frame.right
    );
    for i in 0..=ticks {
        let v = step_y * i as f64;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="end">{}</text>"#,
            frame.left - 4.0,
            y(v) + 4.0,
            num(v)
        );
    }
    let _ = write!(svg, r#"<text x="4" y="{:.1}" class="tick">{}</text>"#, frame.top - 12.0, esc(unit));
    line_points(&mut svg, &frame, points, unit, &x, &y);
    if let Some((i, (label, Some(v)))) = best.and_then(|i| points.get(i).map(|p| (i, p))) {
        let anchor = if x(i) > frame.w - 140.0 {
            "end"
        } else if x(i) < frame.left + 60.0 {
            "start"
        } else {
            "middle"
        };
        let _ = write!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="8" class="mark" fill="none"/><text x="{:.1}" y="{:.1}" class="mark-label" text-anchor="{anchor}">best throughput: {} ({} {})</text>"#,
            x(i),
            y(*v),
            x(i),
            (y(*v) - 12.0).max(12.0),
            esc(label),
            num(*v),
            esc(unit)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The line, broken where a point has no figure, and each point with its label below the axis.
fn line_points(
    svg: &mut String,
    frame: &Frame,
    points: &[(String, Option<f64>)],
    unit: &str,
    x: &dyn Fn(usize) -> f64,
    y: &dyn Fn(f64) -> f64,
) {
    let mut path = String::new();
    let mut pen_down = false;
    for (i, (_, value)) in points.iter().enumerate() {
        match value {
            Some(v) => {
                let _ = write!(path, "{}{:.1} {:.1}", if pen_down { "L" } else { "M" }, x(i), y(*v));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    let _ = write!(svg, r#"<path d="{path}" class="series-line" fill="none"/>"#);
    for (i, (label, value)) in points.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
            x(i),
            frame.floor() + 14.0,
            esc(&shorten(label, 14))
        );
        match value {
            Some(v) => {
                let _ = write!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" class="s1 outline"><title>{}: {} {}</title></circle>"#,
                    x(i),
                    y(*v),
                    esc(label),
                    num(*v),
                    esc(unit)
                );
            }
            None => {
                let _ = write!(
                    svg,
                    r#"<text x="{:.1}" y="{:.1}" class="value" text-anchor="middle">no figure</text>"#,
                    x(i),
                    frame.floor() - 6.0
                );
            }
        }
    }
}

/// A y axis from 0 that holds `max` in a few round steps (1, 2 or 5 times a power of ten):
/// the step and how many of them.
fn axis_ticks(max: f64) -> (f64, usize) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 1);
    }
    let raw = max * 1.05 / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(10.0 * magnitude);
    (step, (max * 1.05 / step).ceil().max(1.0) as usize)
}

/// Milliseconds with enough digits to tell close values apart.
pub fn ms(v: f64) -> String {
    num(v)
}

/// A number with about four significant digits, without exponent for everyday sizes.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else if a >= 0.001 {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let kept: String = text.chars().take(max - 1).collect();
        format!("{kept}…")
    }
}

/// A chart's opening tag, `width` by `height` in its own units, named by `title` for screen
/// readers and as a tooltip.
fn open_chart(width: f64, height: f64, title: &str) -> String {
    format!(
        r#"<svg class="chart" viewBox="0 0 {width} {height:.0}" role="img" aria-label="{}"><title>{}</title>"#,
        esc(title),
        esc(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_every_sample_and_marks_percentiles() {
        let samples = [1.0, 1.1, 1.1, 1.2, 5.0];
        let svg = histogram(&samples, 1.0, 5.0, &[Mark { label: "p50", value: 1.1 }], 0, "m <latency>");
        let counted: usize =
            svg.split("<title>").filter_map(|t| t.split(" runs in ").next()?.parse::<usize>().ok()).sum();
        assert_eq!(counted, samples.len());
        assert!(svg.contains("p50 1.100 ms"), "{svg}");
        assert!(svg.contains("aria-label=\"m &lt;latency&gt;\""), "titles are escaped");
    }

    #[test]
    fn bars_label_values_and_missing_figures() {
        let groups = [
            BarGroup { label: "a".into(), values: vec![Some(2.0), Some(4.0)], flag: None },
            BarGroup { label: "b".into(), values: vec![None, Some(1.0)], flag: Some("REGRESSION +20%".into()) },
        ];
        let svg = bars(&groups, &["p50".into(), "p99".into()], "ms", "t");
        assert!(svg.contains(">2.000 ms<") && svg.contains(">4.000 ms<") && svg.contains(">no figure<"), "{svg}");
        assert!(svg.contains(r#"class="bar-label flagged" text-anchor="end">REGRESSION +20%<"#), "{svg}");
        assert_eq!(svg.matches("url(#hatch)").count(), 2, "the second series is hatched");
    }

    #[test]
    fn lines_plot_every_figure_mark_gaps_and_ring_the_best() {
        let points = [("1".to_string(), Some(100.0)), ("8".to_string(), Some(400.0)), ("64".to_string(), None)];
        let svg = line(&points, "items/s", Some(1), "t");
        assert_eq!(svg.matches("<circle").count(), 3, "two points and the ring: {svg}");
        assert!(svg.contains(">no figure<") && svg.contains("best throughput: 8 (400.0 items/s)"), "{svg}");
        assert_eq!(axis_ticks(400.0), (200.0, 3), "round steps above the largest value");
        assert_eq!(axis_ticks(133.5), (50.0, 3));
        let path = svg.split(r#"<path d=""#).nth(1).and_then(|p| p.split('"').next()).unwrap();
        assert_eq!((path.matches('M').count(), path.matches('L').count()), (1, 1), "one stroke: {path}");
    }

    #[test]
    fn numbers_keep_four_digits() {
        assert_eq!(num(4.6049), "4.605");
        assert_eq!(num(296.27), "296.3");
        assert_eq!(num(0.0213), "0.0213");
        assert_eq!(num(3.8e-5), "3.800e-5");
    }
}
