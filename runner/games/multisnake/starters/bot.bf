Multisnake: reads W H N M T; then after every H lines of the map answers right
cells: c0 input; c1 scratch; c2 H; c3 scratch; c4 one; c5 lines left to read
skip W: read up to the space
,>++++[<-------->-]<[,>++++[<-------->-]<]
read H up to the space: c2 = c2 * 10 plus the digit
,>++++[<-------->-]<[---------------->>[->++++++++++<]>[-<+>]<<<[->>+<<],>++++[<-------->-]<]
skip the rest of the line
,----------[,----------]
for ever: read H lines then answer
>>>>+[<<[->+>>+<<<]>[-<+>]>>[<<<<<,----------[,----------]>>>>>-]<<<<<++++++[>++++++++++<-]>++.[-]<++++++++++.[-]>>>>]
