// A sudoku solver: constraint bitmasks per row/column/box, naked singles propagation,
// then backtracking on the cell with the fewest candidates; solves two puzzles, checks
// the solutions and reports an unsolvable grid.
#[derive(Clone)]
struct Board {
    cells: [u8; 81],
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
}

fn box_of(i: usize) -> usize {
    (i / 27) * 3 + (i % 9) / 3
}

impl Board {
    fn parse(s: &str) -> Option<Board> {
        let mut b = Board { cells: [0; 81], rows: [0; 9], cols: [0; 9], boxes: [0; 9] };
        let digits: Vec<u8> = s.chars().filter(|c| !c.is_whitespace()).map(|c| if c == '.' { 0 } else { c.to_digit(10).unwrap() as u8 }).collect();
        if digits.len() != 81 {
            return None;
        }
        for (i, &d) in digits.iter().enumerate() {
            if d != 0 && !b.place(i, d) {
                return None;
            }
        }
        Some(b)
    }
    fn candidates(&self, i: usize) -> u16 {
        !(self.rows[i / 9] | self.cols[i % 9] | self.boxes[box_of(i)]) & 0x3fe
    }
    fn place(&mut self, i: usize, d: u8) -> bool {
        let bit = 1u16 << d;
        if self.candidates(i) & bit == 0 {
            return false;
        }
        self.cells[i] = d;
        self.rows[i / 9] |= bit;
        self.cols[i % 9] |= bit;
        self.boxes[box_of(i)] |= bit;
        true
    }
    fn propagate(&mut self) -> Option<usize> {
        let mut placed = 0;
        loop {
            let mut progress = false;
            for i in 0..81 {
                if self.cells[i] != 0 {
                    continue;
                }
                let c = self.candidates(i);
                if c == 0 {
                    return None;
                }
                if c.count_ones() == 1 {
                    self.place(i, c.trailing_zeros() as u8);
                    placed += 1;
                    progress = true;
                }
            }
            if !progress {
                return Some(placed);
            }
        }
    }
    fn solve(&mut self, nodes: &mut u32) -> bool {
        *nodes += 1;
        if self.propagate().is_none() {
            return false;
        }
        let best = (0..81).filter(|&i| self.cells[i] == 0).min_by_key(|&i| self.candidates(i).count_ones());
        let Some(i) = best else { return true };
        let mut c = self.candidates(i);
        while c != 0 {
            let d = c.trailing_zeros() as u8;
            c &= c - 1;
            let mut next = self.clone();
            next.place(i, d);
            if next.solve(nodes) {
                *self = next;
                return true;
            }
        }
        false
    }
    fn valid(&self) -> bool {
        (0..9).all(|k| self.rows[k] == 0x3fe && self.cols[k] == 0x3fe && self.boxes[k] == 0x3fe)
    }
    fn show(&self) -> String {
        let mut s = String::new();
        for r in 0..9 {
            if r % 3 == 0 && r > 0 {
                s.push_str("------+-------+------\n");
            }
            for c in 0..9 {
                if c % 3 == 0 && c > 0 {
                    s.push_str("| ");
                }
                let d = self.cells[r * 9 + c];
                s.push(if d == 0 { '.' } else { (b'0' + d) as char });
                s.push(' ');
            }
            s.pop();
            s.push('\n');
        }
        s
    }
}

fn main() {
    let puzzles = [
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
        "..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2.........6...2759..",
        "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
        "11.......  .........  .........  .........  .........  .........  .........  .........  .........",
        "12345678.........9...............................................................",
    ];
    for (k, p) in puzzles.iter().enumerate() {
        match Board::parse(p) {
            None => println!("puzzle {k}: invalid"),
            Some(mut b) => {
                let given = b.cells.iter().filter(|&&c| c != 0).count();
                let mut nodes = 0;
                if b.solve(&mut nodes) {
                    println!("puzzle {k}: {given} givens, solved in {nodes} nodes, valid {}", b.valid());
                    print!("{}", b.show());
                } else {
                    println!("puzzle {k}: {given} givens, no solution ({nodes} nodes)");
                }
            }
        }
    }
}
