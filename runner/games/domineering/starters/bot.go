// The first legal move: the first domino that fits (row-major), else the bomb on the first square
// no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start).
package main

import "fmt"

var b [13][13]int

func at(r, c int) int {
	if r < 0 || r > 12 || c < 0 || c > 12 {
		return -1
	}
	return b[r][c]
}

func first(r, c, dr, dc int) bool {
	n := 0
	for at(r-(n+1)*dr, c-(n+1)*dc) == at(r, c) {
		n++
	}
	return n%2 == 0
}

func main() {
	var o, bombs int
	fmt.Scan(&o)
	for r := 0; r < 13; r++ {
		for c := 0; c < 13; c++ {
			fmt.Scan(&b[r][c])
		}
	}
	fmt.Scan(&bombs)
	dr, dc := 1, 0
	if o == 1 {
		dr, dc = 0, 1
	}
	for r := 0; r < 13; r++ {
		for c := 0; c < 13; c++ {
			if at(r, c) == 0 && at(r+dr, c+dc) == 0 {
				fmt.Printf("1 %d %d\n", r, c)
				return
			}
		}
	}
	for r := 0; r < 9 && bombs > 0; r++ {
		for c := 0; c < 9; c++ {
			crossed := false
			for i := 0; i < 5; i++ {
				crossed = crossed || (at(r+i, c) == 1 && !first(r+i, c, 0, 1)) || (at(r+i, c+4) == 1 && first(r+i, c+4, 0, 1)) ||
					(at(r, c+i) == 2 && !first(r, c+i, 1, 0)) || (at(r+4, c+i) == 2 && first(r+4, c+i, 1, 0))
			}
			if !crossed {
				fmt.Printf("2 %d %d\n", r, c)
				return
			}
		}
	}
	fmt.Println("1 0 0")
}
