package io.loomgmp.trace;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where the console's frames go and its keys come from, in one of two modes:
 * <ul>
 *   <li><b>screen</b>, on a terminal (standard input and output both a tty, {@code TERM} set and
 *       not {@code dumb}): the alternate screen, each frame drawn over the last with plain ANSI
 *       sequences (home, erase to end of line, erase below), the cursor hidden; keys one at a
 *       time, the terminal put in non-canonical mode without echo by {@code stty} on
 *       {@code /dev/tty}; the size read with {@code stty size} before each frame, so a resized
 *       window is filled at the next refresh. Ctrl-C keeps its signal: the console's shutdown
 *       hook restores the terminal.</li>
 *   <li><b>plain</b>, anywhere else (a pipe, a file, {@code TERM=dumb}, and the non-interactive
 *       {@code --once} and {@code --frames}): frames printed one after another with an empty
 *       line between them, no escape sequence, no width limit; keys, when taken, a line each
 *       (a letter and Enter).</li>
 * </ul>
 * Why not JLine: the console needs raw keys and the window's size on Unix terminals, which
 * {@code stty} gives with no dependency; JLine would add a megabyte to the self-contained trace
 * jar, and native access (its JNI or FFM terminal providers) that JDK 25 warns about. A terminal
 * without {@code stty} (Windows) gets the screen with line keys.
 *
 * <p>Threads: {@link #show} is called by the console's loop; {@link #restore} by the loop or the
 * shutdown hook, once (later calls do nothing); a daemon thread reads the keys into a queue.
 */
final class Terminal {
    private static final String CSI = "\033[";
    private static final String ALTERNATE_SCREEN = CSI + "?1049h";
    private static final String MAIN_SCREEN = CSI + "?1049l";
    private static final String HIDE_CURSOR = CSI + "?25l";
    private static final String SHOW_CURSOR = CSI + "?25h";
    private static final String HOME = CSI + "H";
    private static final String ERASE_LINE = CSI + "K";
    private static final String ERASE_BELOW = CSI + "J";
    private static final int DEFAULT_ROWS = 24;
    private static final int DEFAULT_COLUMNS = 80;
    private static final File TTY = new File("/dev/tty");

    private final PrintStream out;
    private final boolean screen;
    /** The terminal's settings before raw mode ({@code stty -g}), or null when keys come in lines. */
    private final String savedSettings;
    private final BlockingQueue<Character> keys = new LinkedBlockingQueue<>();
    private final AtomicBoolean restored = new AtomicBoolean();
    private final Object drawing = new Object();
    private boolean firstFrame = true;

    private Terminal(PrintStream out, boolean screen, String savedSettings) {
        this.out = out;
        this.screen = screen;
        this.savedSettings = savedSettings;
    }

    /** Whether this process runs on a terminal that can show the screen mode. */
    static boolean isScreenCapable() {
        String term = System.getenv("TERM");
        java.io.Console console = System.console();
        return console != null && console.isTerminal() && term != null && !term.isBlank() && !term.equals("dumb");
    }

    /**
     * Opens the terminal: screen mode if {@code screen}, else plain; with {@code takeKeys}, starts
     * reading keys from {@code in}. Never throws: a terminal that {@code stty} cannot set takes
     * keys in lines.
     */
    static Terminal open(boolean screen, boolean takeKeys, PrintStream out, InputStream in) {
        String saved = screen && takeKeys ? stty("-g") : null;
        if (saved != null && stty("-icanon", "-echo", "min", "1", "time", "0") == null) {
            stty(saved.trim());
            saved = null;
        }
        Terminal terminal = new Terminal(out, screen, saved == null ? null : saved.trim());
        if (screen) {
            out.print(ALTERNATE_SCREEN + HIDE_CURSOR);
            out.flush();
        }
        if (takeKeys) {
            Thread reader = new Thread(() -> terminal.readKeys(in), "loomgmp-top-keys");
            reader.setDaemon(true);
            reader.start();
        }
        return terminal;
    }

    boolean isScreen() {
        return screen;
    }

    /** Whether keys arrive one at a time (raw mode), not a line each. */
    boolean keysAreRaw() {
        return savedSettings != null;
    }

    /** The window's size as {rows, columns}, or {0, 0} (no limit) in plain mode. */
    int[] size() {
        if (!screen) {
            return new int[] {0, 0};
        }
        String size = stty("size");
        if (size != null) {
            String[] parts = size.trim().split("\\s+");
            try {
                int rows = Integer.parseInt(parts[0]);
                int columns = Integer.parseInt(parts[1]);
                if (rows > 0 && columns > 0) {
                    return new int[] {rows, columns};
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                // Not "rows columns": the defaults below.
            }
        }
        return new int[] {DEFAULT_ROWS, DEFAULT_COLUMNS};
    }

    /** Shows one frame. */
    void show(List<String> lines) {
        StringBuilder frame = new StringBuilder();
        if (screen) {
            frame.append(HOME);
            for (int i = 0; i < lines.size(); i++) {
                frame.append(lines.get(i)).append(ERASE_LINE);
                if (i < lines.size() - 1) {
                    frame.append("\r\n"); // no newline after the last: a full screen must not scroll
                }
            }
            frame.append(ERASE_BELOW);
        } else {
            if (!firstFrame) {
                frame.append(System.lineSeparator());
            }
            for (String line : lines) {
                frame.append(line).append(System.lineSeparator());
            }
        }
        firstFrame = false;
        synchronized (drawing) {
            if (!restored.get()) {
                out.print(frame);
                out.flush();
            }
        }
    }

    /** The next key, waiting up to {@code millis}; null if none came. */
    Character nextKey(long millis) throws InterruptedException {
        return keys.poll(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /**
     * Gives the terminal back as it was: the main screen, the cursor, the settings. Any thread,
     * once; never throws.
     */
    void restore() {
        if (!restored.compareAndSet(false, true)) {
            return;
        }
        synchronized (drawing) {
            if (screen) {
                out.print(SHOW_CURSOR + MAIN_SCREEN);
                out.flush();
            }
        }
        if (savedSettings != null) {
            stty(savedSettings);
        }
    }

    /** The key thread: a byte a key in raw mode (escape sequences dropped), else a line a key. */
    private void readKeys(InputStream in) {
        try {
            if (savedSettings != null) {
                int b;
                while ((b = in.read()) >= 0) {
                    if (b == 27) { // ESC: an arrow or function key sends a sequence; drop what came with it
                        in.skip(in.available());
                        continue;
                    }
                    keys.add((char) b);
                }
            } else {
                BufferedReader lines = new BufferedReader(new InputStreamReader(in, Charset.defaultCharset()));
                String line;
                while ((line = lines.readLine()) != null) {
                    String key = line.strip();
                    if (!key.isEmpty()) {
                        keys.add(key.charAt(0));
                    }
                }
            }
        } catch (IOException e) {
            // Standard input closed under us: no more keys; q is then Ctrl-C.
        }
    }

    /** Runs {@code stty args} on the terminal; its output, or null if it failed (no stty, no tty). */
    private static String stty(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "stty";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process stty = new ProcessBuilder(command).redirectInput(TTY)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String output = new String(stty.getInputStream().readAllBytes(), Charset.defaultCharset());
            if (!stty.waitFor(5, TimeUnit.SECONDS) || stty.exitValue() != 0) {
                stty.destroyForcibly();
                return null;
            }
            return output;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
