// Sorting: sort, sort_unstable, sort_by, sort_by_key, sort_by_cached_key, stability,
// reverse, dedup, binary_search hits and misses, partition_point, select_nth_unstable,
// floats with total_cmp, a hand-written merge sort checked against sort.
#[derive(Debug, Clone)]
struct Person {
    name: &'static str,
    age: u32,
}

fn merge_sort(v: &mut Vec<i64>) {
    if v.len() <= 1 {
        return;
    }
    let mut right = v.split_off(v.len() / 2);
    merge_sort(v);
    merge_sort(&mut right);
    let left = std::mem::take(v);
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if left[i] <= right[j] {
            v.push(left[i]);
            i += 1;
        } else {
            v.push(right[j]);
            j += 1;
        }
    }
    v.extend_from_slice(&left[i..]);
    v.extend_from_slice(&right[j..]);
}

fn main() {
    let mut v = vec![5, 3, 9, 1, 5, 7, 3, 3, 0, 8];
    v.sort();
    println!("sort {v:?}");
    println!("binary_search 7 {:?} 4 {:?} 3 found {}", v.binary_search(&7), v.binary_search(&4), v.binary_search(&3).is_ok());
    println!("partition_point <5 {}", v.partition_point(|&x| x < 5));
    v.dedup();
    println!("dedup {v:?}");
    v.reverse();
    println!("reverse {v:?}");
    v.sort_unstable_by(|a, b| b.cmp(a));
    println!("desc {v:?}");
    let mut people = vec![
        Person { name: "Zoe", age: 30 },
        Person { name: "Adam", age: 25 },
        Person { name: "Bob", age: 30 },
        Person { name: "Carl", age: 25 },
        Person { name: "Dana", age: 41 },
    ];
    people.sort_by_key(|p| p.age);
    println!("stable by age {:?}", people.iter().map(|p| p.name).collect::<Vec<_>>());
    people.sort_by(|a, b| b.age.cmp(&a.age).then_with(|| a.name.cmp(b.name)));
    println!("age desc, name {:?}", people.iter().map(|p| format!("{}:{}", p.name, p.age)).collect::<Vec<_>>());
    people.sort_by_cached_key(|p| p.name.to_lowercase());
    println!("by name {:?}", people.iter().map(|p| p.name).collect::<Vec<_>>());
    let idx = people.binary_search_by(|p| p.name.cmp("Carl"));
    println!("Carl at {:?}, Eve {:?}", idx, people.binary_search_by_key(&"Eve", |p| p.name));
    let mut fl = vec![2.5, -1.0, f64::INFINITY, 0.0, -0.0, 1e-10, -7.25];
    fl.sort_by(f64::total_cmp);
    println!("floats {fl:?}");
    let mut words = vec!["delta", "Alpha", "charlie", "bravo", "Echo"];
    words.sort();
    println!("{words:?}");
    words.sort_by_key(|w| w.to_ascii_lowercase());
    println!("{words:?}");
    let mut nums: Vec<i64> = (0..500).map(|i: i64| (i * 7919 + 13) % 10007 - 5000).collect();
    let mut expected = nums.clone();
    expected.sort_unstable();
    merge_sort(&mut nums);
    println!("merge sort agrees {} min {} max {} median {}", nums == expected, nums[0], nums[nums.len() - 1], nums[nums.len() / 2]);
    let mut sel = vec![9, 4, 7, 1, 8, 2, 6];
    let (_, m, _) = sel.select_nth_unstable(3);
    println!("4th smallest {m}");
    let mut chars: Vec<char> = "the quick brown fox".chars().filter(|c| !c.is_whitespace()).collect();
    chars.sort_unstable();
    chars.dedup();
    println!("{}", chars.iter().collect::<String>());
    let mut tuples = vec![(2, 'b'), (1, 'z'), (2, 'a'), (1, 'a')];
    tuples.sort();
    println!("{tuples:?} is_sorted {}", tuples.is_sorted());
}
