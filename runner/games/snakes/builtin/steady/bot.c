/* koth's built-in opponent for the check stage (Snakes): walks along its own edge of the board,
   then turns along the side edge and stays there. It keeps no state and never faults, so a
   smoke game against it fails only when the entry itself breaks a rule or a limit. */
int bot(int board[16][32], char player) {
    int head = player == 'X' ? '*' : '@';
    for (int y = 0; y < 16; y++) {
        for (int x = 0; x < 32; x++) {
            if (board[y][x] != head) continue;
            if (player == 'X') return (y == 0 && x < 31) ? 'R' : 'D';
            return (y == 15 && x > 0) ? 'L' : 'U';
        }
    }
    return player == 'X' ? 'R' : 'L';
}
char *bot_name = "Steady (built-in)";
