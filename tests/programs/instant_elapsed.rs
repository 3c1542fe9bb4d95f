// std::time::Instant and Duration: only value-independent facts are printed (elapsed is
// monotone), plus Duration arithmetic and formatting, which are exact.
use std::time::{Duration, Instant};

fn main() {
    let start = Instant::now();
    let mut x = 0u64;
    for i in 0..10_000u64 {
        x = x.wrapping_add(i * i);
    }
    let mid = Instant::now();
    let end = Instant::now();
    println!("work {x}");
    println!("monotone {} {}", mid >= start, end.duration_since(start) >= mid.duration_since(start));
    println!("checked_duration_since(later) {:?}", start.checked_duration_since(end).map(|d| d.is_zero()));
    let d = Duration::from_millis(1500) + Duration::from_micros(250);
    println!("{d:?} secs {} millis {} micros {} nanos {} as_secs_f64 {}", d.as_secs(), d.as_millis(), d.as_micros(), d.subsec_nanos(), d.as_secs_f64());
    println!("{:?} {:?} {:?} {:?}", Duration::from_secs(3661), Duration::from_nanos(1), Duration::from_nanos(1_000_001), Duration::ZERO);
    println!("{:?} {:?} {:?}", d * 3, d / 4, d.checked_sub(Duration::from_secs(2)));
    println!("{:?} {:?}", Duration::from_secs_f64(0.125), Duration::MAX.checked_add(Duration::from_nanos(1)));
    println!("{:.2?} {:>12?}|", Duration::from_micros(1234567), Duration::from_millis(7));
}
