// The first legal move: the first domino that fits (row-major), else the bomb on the first square
// no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start).
use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let v: Vec<i32> = text.split_whitespace().map(|w| w.parse().unwrap()).collect();
    let (o, bombs) = (v[0], v[170]);
    let at = |r: i32, c: i32| if (0..13).contains(&r) && (0..13).contains(&c) { v[1 + (r * 13 + c) as usize] } else { -1 };
    let first = |r: i32, c: i32, dr: i32, dc: i32| {
        let mut n = 0;
        while at(r - (n + 1) * dr, c - (n + 1) * dc) == at(r, c) { n += 1; }
        n % 2 == 0
    };
    let (dr, dc) = if o == 1 { (0, 1) } else { (1, 0) };
    for r in 0..13 { for c in 0..13 {
        if at(r, c) == 0 && at(r + dr, c + dc) == 0 { println!("1 {} {}", r, c); return; }
    }}
    if bombs > 0 {
        for r in 0..9 { for c in 0..9 {
            let crossed = (0..5).any(|i| (at(r + i, c) == 1 && !first(r + i, c, 0, 1)) || (at(r + i, c + 4) == 1 && first(r + i, c + 4, 0, 1))
                || (at(r, c + i) == 2 && !first(r, c + i, 1, 0)) || (at(r + 4, c + i) == 2 && first(r + 4, c + i, 1, 0)));
            if !crossed { println!("2 {} {}", r, c); return; }
        }}
    }
    println!("1 0 0");
}
