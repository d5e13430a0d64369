import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

/** The first free tile beside the head (up, right, down, left), else up. */
public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer header = new StringTokenizer(in.readLine());
        int w = Integer.parseInt(header.nextToken()), h = Integer.parseInt(header.nextToken());
        header.nextToken();
        char me = (char) (64 + Integer.parseInt(header.nextToken()));
        String arrows = "^>v<";
        int[] dx = {0, 1, 0, -1}, dy = {-1, 0, 1, 0};
        String[] rows = new String[h];
        for (;;) {
            for (int y = 0; y < h; y++) {
                String row = in.readLine();
                if (row == null) return;
                if (row.isBlank()) { y--; continue; }
                rows[y] = row.trim();
            }
            int hx = 0, hy = 0;
            for (int y = 0; y < h; y++) if (rows[y].indexOf(me) >= 0) { hx = rows[y].indexOf(me); hy = y; }
            char answer = '^';
            for (int d = 0; d < 4; d++) {
                char tile = rows[(hy + dy[d] + h) % h].charAt((hx + dx[d] + w) % w);
                if (tile == '.' || tile == '+') { answer = arrows.charAt(d); break; }
            }
            System.out.println(answer);
            System.out.flush();
        }
    }
}
