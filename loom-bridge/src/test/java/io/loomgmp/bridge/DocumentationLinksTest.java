package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The user documentation holds together: the README fits on a page, and every relative link in
 * it, in {@code CONTRIBUTING.md}, {@code CHANGELOG.md} and in {@code docs/} names a file that
 * exists and, after {@code #}, a heading of that file (as GitHub turns headings into anchors).
 */
class DocumentationLinksTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** {@code [text](target)} and {@code ![alt](target)}; the target without spaces. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$", Pattern.MULTILINE);
    private static final int README_MAX_LINES = 150;

    @Test
    void readmeFitsOnAPage() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertTrue(lines.size() <= README_MAX_LINES, "README.md has " + lines.size() + " lines, more than " + README_MAX_LINES);
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            String text = withoutCodeBlocks(Files.readString(page));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) { // https:, mailto: ...
                    continue;
                }
                checked++;
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertTrue(checked > 50, "only " + checked + " links found: is the pattern still right?");
        assertEquals(List.of(), broken, "broken links in the documentation");
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertEquals("upgrades-and-version-skew", anchor("Upgrades and version skew"));
        assertEquals("carrier-compensation-hand-off", anchor("Carrier compensation (hand-off)"));
        assertEquals("live-loomgmp-top-pid", anchor("Live: `./loomgmp top <pid>`"));
    }

    private static String problem(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (hash < 0) {
            return null;
        }
        if (!resolved.toString().endsWith(".md")) {
            return "an anchor into a file that is not markdown";
        }
        Set<String> anchors = anchors(Files.readString(resolved));
        String wanted = target.substring(hash + 1);
        return anchors.contains(wanted) ? null : "no heading makes the anchor #" + wanted;
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md"), ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Matcher m = HEADING.matcher(withoutCodeBlocks(markdown));
        while (m.find()) {
            String base = anchor(m.group(1));
            String a = base;
            for (int n = 1; !anchors.add(a); n++) { // GitHub numbers repeated headings
                a = base + "-" + n;
            }
        }
        return anchors;
    }

    /** GitHub's rule: lower case, drop everything but letters, digits, spaces, '-' and '_', spaces to '-'. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** Fenced code blocks hold commands and code, not links or headings. */
    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?ms)^```.*?^```", "");
    }
}
