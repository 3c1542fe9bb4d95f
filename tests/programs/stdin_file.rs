// Reads its stdin (given by the stdin-file header) with read_line, parses a small CSV
// table and prints column statistics and a sorted report.
// stdin-file: stdin_file.csv
use std::io;

fn main() {
    let mut header = String::new();
    io::stdin().read_line(&mut header).unwrap();
    let cols: Vec<String> = header.trim_end().split(',').map(String::from).collect();
    println!("columns {cols:?}");
    let mut rows: Vec<(String, Vec<f64>)> = Vec::new();
    let mut buf = String::new();
    loop {
        buf.clear();
        let n = io::stdin().read_line(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        let line = buf.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split(',');
        let name = fields.next().unwrap().to_string();
        let values: Vec<f64> = fields.map(|f| f.trim().parse().unwrap_or(f64::NAN)).collect();
        rows.push((name, values));
    }
    for c in 1..cols.len() {
        let vals: Vec<f64> = rows.iter().map(|(_, v)| v[c - 1]).filter(|v| !v.is_nan()).collect();
        let sum: f64 = vals.iter().sum();
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        println!("{:>8}: n {} sum {:.2} mean {:.3} min {} max {}", cols[c], vals.len(), sum, sum / vals.len() as f64, min, max);
    }
    rows.sort_by(|a, b| b.1[0].total_cmp(&a.1[0]).then(a.0.cmp(&b.0)));
    for (name, v) in &rows {
        let cells: Vec<String> = v.iter().map(|x| format!("{x:>7.1}")).collect();
        println!("{name:<10}{}", cells.join(""));
    }
}
