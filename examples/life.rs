//! Conway's game of life on a small torus: a glider and a blinker, a few generations
//! drawn as text.
//!
//!     ./y.sh run --release --stats examples/life.rs

const ROWS: usize = 10;
const COLS: usize = 24;

type Board = [[bool; COLS]; ROWS];

fn step(board: &Board) -> Board {
    let mut next = [[false; COLS]; ROWS];
    for r in 0..ROWS {
        for c in 0..COLS {
            let mut neighbours = 0;
            for dr in [ROWS - 1, 0, 1] {
                for dc in [COLS - 1, 0, 1] {
                    if (dr, dc) != (0, 0) && board[(r + dr) % ROWS][(c + dc) % COLS] {
                        neighbours += 1;
                    }
                }
            }
            next[r][c] = matches!((board[r][c], neighbours), (true, 2) | (_, 3));
        }
    }
    next
}

fn draw(generation: usize, board: &Board) {
    println!("generation {generation}:");
    for row in board {
        let line: String = row.iter().map(|&alive| if alive { '#' } else { '.' }).collect();
        println!("  {line}");
    }
}

fn main() {
    let mut board = [[false; COLS]; ROWS];
    // a glider, heading down and right
    for (r, c) in [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)] {
        board[r][c] = true;
    }
    // a blinker
    for c in 15..18 {
        board[5][c] = true;
    }
    for generation in 0..=8 {
        if generation % 4 == 0 {
            draw(generation, &board);
        }
        board = step(&board);
    }
    let alive: usize = board.iter().flatten().filter(|&&a| a).count();
    println!("alive after 9 generations: {alive}");
}
