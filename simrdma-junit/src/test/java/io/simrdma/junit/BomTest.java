package io.simrdma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * simrdma-bom has no parent (so that importing it pins simrdma's modules and nothing else): this
 * test keeps it in step with the build: the same version, and every module an application may use.
 */
class BomTest {

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>([^<]+)</artifactId>");
    private static final Pattern VERSION = Pattern.compile("<version>([^<$]+)</version>");

    @Test
    @DisplayName("the BOM has the build's version and manages every module of the build but the build's own")
    void shouldListEveryModuleWhenBuildHasIt() throws IOException {
        String root = Files.readString(Path.of("..", "pom.xml"), StandardCharsets.UTF_8);
        String bom = Files.readString(Path.of("..", "simrdma-bom", "pom.xml"), StandardCharsets.UTF_8);
        assertEquals(first(VERSION, root), first(VERSION, bom), "the BOM's version and the parent's");

        List<String> expected = new ArrayList<>();
        String modules = root.substring(root.indexOf("<modules>"), root.indexOf("</modules>"));
        Matcher m = MODULE.matcher(modules);
        while (m.find()) {
            String module = m.group(1);
            // test-support is the build's own test helper, examples the learner's programs run by
            // './simrdma example'; the BOM does not manage itself
            if (!module.equals("test-support") && !module.equals("simrdma-bom") && !module.equals("examples")) {
                expected.add(module);
            }
        }
        List<String> managed = new ArrayList<>();
        String dm = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
        Matcher a = ARTIFACT.matcher(dm);
        while (a.find()) {
            managed.add(a.group(1));
        }
        assertEquals(expected, managed, "the modules simrdma-bom manages, in the build's order");
    }

    private static String first(Pattern p, String s) {
        Matcher m = p.matcher(s);
        return m.find() ? m.group(1) : null;
    }
}
