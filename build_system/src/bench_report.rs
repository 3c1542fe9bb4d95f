//! What a benchmark hands to the report: a section of Markdown, plots, summary lines;
//! and the SVG bar charts the plots become (drawn here: the build system has no
//! dependencies, see its Cargo.toml).

use std::fmt::Write as _;

/// One benchmark's part of `target/bench/report.md`.
pub struct Section {
    /// The `##` heading.
    pub title: String,
    /// The body, in Markdown (tables, notes), without the heading.
    pub markdown: String,
    /// Charts written next to the report and linked from the section.
    pub plots: Vec<Plot>,
    /// A few lines for the summary printed at the end and shown in the README.
    pub summary: Vec<String>,
}

/// A horizontal grouped bar chart: one group of bars per category, one bar per series.
pub struct Plot {
    /// File name (without directory), ending in `.svg`.
    pub file: String,
    pub title: String,
    /// What the values are, shown under the axis, e.g. "simulated cycles".
    pub unit: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub scale: Scale,
}

pub struct Series {
    pub name: String,
    /// One value per category; `None` is drawn as "n/a".
    pub values: Vec<Option<f64>>,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Scale {
    Linear,
    /// For figures that span orders of magnitude (cycles of different programs).
    Log,
}

/// Series colours (colour-blind-safe palette of Okabe and Ito).
const COLOURS: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
];

const WIDTH: f64 = 960.0;
const LABEL_WIDTH: f64 = 190.0;
const RIGHT_MARGIN: f64 = 70.0;
const BAR_HEIGHT: f64 = 11.0;
const GROUP_GAP: f64 = 8.0;
const TOP: f64 = 48.0;

impl Plot {
    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let bars = self.series.len().max(1) as f64;
        let group = bars * BAR_HEIGHT + GROUP_GAP;
        let plot_height = group * self.categories.len() as f64;
        let legend_rows = self.series.len().div_ceil(4) as f64;
        let height = TOP + plot_height + 40.0 + legend_rows * 18.0 + 10.0;
        let axis = Axis::new(self.values(), self.scale);
        let x0 = LABEL_WIDTH;
        let span = WIDTH - LABEL_WIDTH - RIGHT_MARGIN;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="20" font-size="15" font-weight="bold" text-anchor="middle">{}</text>"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        // Grid lines and tick labels.
        for (value, label) in axis.ticks() {
            let x = x0 + axis.fraction(value) * span;
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="#444">{label}</text>"##,
                TOP - 6.0,
                TOP + plot_height,
                TOP - 10.0
            );
        }
        for (c, category) in self.categories.iter().enumerate() {
            let y = TOP + c as f64 * group;
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
                x0 - 6.0,
                y + bars * BAR_HEIGHT / 2.0,
                escape(category)
            );
            for (k, series) in self.series.iter().enumerate() {
                let colour = COLOURS[k % COLOURS.len()];
                let yb = y + k as f64 * BAR_HEIGHT;
                match series.values.get(c).copied().flatten() {
                    Some(v) => {
                        let w = (axis.fraction(v) * span).max(1.0);
                        let _ = writeln!(
                            s,
                            r#"<rect x="{x0}" y="{yb:.1}" width="{w:.1}" height="{:.1}" fill="{colour}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" dominant-baseline="middle" font-size="9">{}</text>"#,
                            BAR_HEIGHT - 1.0,
                            escape(&series.name),
                            number(v),
                            x0 + w + 3.0,
                            yb + BAR_HEIGHT / 2.0,
                            number(v)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            r##"<text x="{:.1}" y="{:.1}" dominant-baseline="middle" font-size="9" fill="#888">n/a</text>"##,
                            x0 + 3.0,
                            yb + BAR_HEIGHT / 2.0
                        );
                    }
                }
            }
        }
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{}" x2="{x0}" y2="{:.1}" stroke="#000"/>"##,
            TOP - 6.0,
            TOP + plot_height
        );
        let unit = match self.scale {
            Scale::Linear => escape(&self.unit),
            Scale::Log => format!("{} (log scale)", escape(&self.unit)),
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{unit}</text>"#,
            x0 + span / 2.0,
            TOP + plot_height + 18.0
        );
        for (k, series) in self.series.iter().enumerate() {
            let x = x0 + (k % 4) as f64 * (span / 4.0);
            let y = TOP + plot_height + 36.0 + (k / 4) as f64 * 18.0;
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{y:.1}" dominant-baseline="middle">{}</text>"#,
                y - 6.0,
                COLOURS[k % COLOURS.len()],
                x + 16.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.series
            .iter()
            .flat_map(|s| s.values.iter().copied().flatten())
    }
}

/// Maps values to the fraction of the plot width, with round tick values.
struct Axis {
    scale: Scale,
    /// Linear: 0..max. Log: log10 of min..max, widened to 1, 2 or 5 times a power of ten.
    low: f64,
    high: f64,
}

impl Axis {
    fn new(values: impl Iterator<Item = f64>, scale: Scale) -> Axis {
        let values: Vec<f64> = values.filter(|v| v.is_finite()).collect();
        match scale {
            Scale::Linear => {
                let max = values.iter().copied().fold(0.0, f64::max);
                Axis {
                    scale,
                    low: 0.0,
                    high: nice_ceiling(if max > 0.0 { max } else { 1.0 }),
                }
            }
            Scale::Log => {
                let positive = values.iter().copied().filter(|v| *v > 0.0);
                let min = positive.clone().fold(f64::INFINITY, f64::min);
                let max = positive.fold(0.0, f64::max);
                let (min, max) = if max > 0.0 { (min, max) } else { (1.0, 10.0) };
                let low = nice_floor(min).log10();
                let high = log_ceiling(max).log10().max(low + 2f64.log10());
                Axis { scale, low, high }
            }
        }
    }

    fn fraction(&self, value: f64) -> f64 {
        let position = match self.scale {
            Scale::Linear => value,
            Scale::Log if value > 0.0 => value.log10(),
            Scale::Log => self.low,
        };
        ((position - self.low) / (self.high - self.low)).clamp(0.0, 1.0)
    }

    fn ticks(&self) -> Vec<(f64, String)> {
        match self.scale {
            Scale::Linear => (0..=5)
                .map(|i| {
                    let v = self.high * i as f64 / 5.0;
                    (v, number(v))
                })
                .collect(),
            Scale::Log => {
                // 1, 2 and 5 times each power of ten in range.
                let first = self.low.floor() as i32;
                let last = self.high.ceil() as i32;
                (first..=last)
                    .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
                    .filter(|v| {
                        let l = v.log10();
                        l >= self.low - 1e-9 && l <= self.high + 1e-9
                    })
                    .map(|v| (v, number(v)))
                    .collect()
            }
        }
    }
}

/// The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `v`.
fn nice_ceiling(v: f64) -> f64 {
    let decade = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|c| *c >= v * (1.0 - 1e-9))
        .unwrap_or(10.0 * decade)
}

/// The smallest of 1, 2, 5 times a power of ten that is at least `v` (`v` > 0): the
/// values the log axis has ticks at.
fn log_ceiling(v: f64) -> f64 {
    let decade = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|c| *c >= v * (1.0 - 1e-9))
        .unwrap_or(10.0 * decade)
}

/// The largest of 1, 2, 5 times a power of ten that is at most `v` (`v` > 0).
fn nice_floor(v: f64) -> f64 {
    let decade = 10f64.powf(v.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|c| *c <= v * (1.0 + 1e-9))
        .unwrap_or(decade)
}

/// A value as a short label: 3 significant digits with k/M/G suffixes.
pub fn number(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let digits = if scaled.abs() >= 100.0 || (scaled.fract() == 0.0 && suffix.is_empty()) {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{scaled:.digits$}{suffix}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A Markdown table from a header and rows (cells are written as given).
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = format!("| {} |\n|", header.join(" | "));
    for _ in header {
        s.push_str("---|");
    }
    s.push('\n');
    for row in rows {
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    s
}

/// The geometric mean of positive values (`None` when there are none).
pub fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .filter(|v| *v > 0.0)
        .fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot(scale: Scale) -> Plot {
        Plot {
            file: "x.svg".into(),
            title: "Cycles <per> program".into(),
            unit: "cycles".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![
                Series {
                    name: "on".into(),
                    values: vec![Some(1500.0), Some(2.5e7)],
                },
                Series {
                    name: "off".into(),
                    values: vec![None, Some(3e7)],
                },
            ],
            scale,
        }
    }

    #[test]
    fn svg_has_one_bar_per_value_and_escapes_text() {
        for scale in [Scale::Linear, Scale::Log] {
            let svg = plot(scale).to_svg();
            assert!(svg.starts_with("<svg"));
            assert!(svg.trim_end().ends_with("</svg>"));
            // 3 bars plus 2 legend swatches plus the background.
            assert_eq!(svg.matches("<rect").count(), 6);
            assert!(svg.contains("n/a"));
            assert!(svg.contains("Cycles &lt;per&gt; program"));
            assert!(!svg.contains("NaN"));
        }
    }

    #[test]
    fn log_axis_spans_round_values() {
        let axis = Axis::new([1500.0, 2.5e7].into_iter(), Scale::Log);
        assert_eq!(axis.fraction(1e3), 0.0);
        assert_eq!(axis.fraction(5e7), 1.0);
        let ticks: Vec<f64> = axis.ticks().into_iter().map(|t| t.0).collect();
        assert_eq!(ticks.first().copied(), Some(1e3));
        assert_eq!(ticks.last().copied(), Some(5e7));
        assert_eq!(ticks.len(), 15);
        let narrow = Axis::new([16.6e6, 135e6].into_iter(), Scale::Log);
        assert!((narrow.low - 1e7f64.log10()).abs() < 1e-12);
        assert!((narrow.high - 2e8f64.log10()).abs() < 1e-12);
        let linear = Axis::new([0.3, 0.74].into_iter(), Scale::Linear);
        assert_eq!(linear.high, 1.0);
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(70_831_064.0), "70.8M");
        assert_eq!(number(0.4567), "0.46");
        assert_eq!(number(12.0), "12");
        assert_eq!(number(1.5e9), "1.50G");
        assert_eq!(number(25_000.0), "25.0k");
        assert_eq!(nice_ceiling(0.74), 1.0);
        assert_eq!(nice_ceiling(137e6), 2e8);
    }

    #[test]
    fn geomean_and_table() {
        assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(geomean([]), None);
        assert_eq!(
            table(&["a", "b"], &[vec!["1".into(), "2".into()]]),
            "| a | b |\n|---|---|\n| 1 | 2 |\n"
        );
    }
}
