// The first free tile beside the head (up, right, down, left), else up.
use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines().map_while(Result::ok).filter(|l| !l.trim().is_empty());
    let header: Vec<usize> = match lines.next() {
        Some(l) => l.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect(),
        None => return,
    };
    let (w, h, me) = (header[0], header[1], (64 + header[3]) as u8);
    let moves = [(b'^', 0, h - 1), (b'>', 1, 0), (b'v', 0, 1), (b'<', w - 1, 0)];
    let mut out = io::stdout();
    loop {
        let mut rows: Vec<Vec<u8>> = Vec::with_capacity(h);
        for _ in 0..h {
            match lines.next() {
                Some(l) => rows.push(l.trim().as_bytes().to_vec()),
                None => return,
            }
        }
        let (mut hx, mut hy) = (0, 0);
        for (y, row) in rows.iter().enumerate() {
            if let Some(x) = row.iter().position(|&c| c == me) {
                hx = x;
                hy = y;
            }
        }
        let mut answer = b'^';
        for &(arrow, dx, dy) in &moves {
            let tile = rows[(hy + dy) % h][(hx + dx) % w];
            if tile == b'.' || tile == b'+' {
                answer = arrow;
                break;
            }
        }
        if out.write_all(&[answer, b'\n']).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}
