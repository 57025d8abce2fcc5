package dev.kgpu.agent.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks that an agent's documentation names every flag, variable and config-file field it reads, in
 * that agent's section ({@code ## Device plugin}) of a Markdown file. Each agent's docs test calls it with
 * its own settings, so a setting added without its row in the Flag | Environment variable | Default table
 * fails the build.
 */
public final class SettingsTable {

    private SettingsTable() {
    }

    /**
     * Every flag and variable of {@code settings} is in the section.
     *
     * @param markdown the file, relative to the module (tests run in the module folder)
     * @param heading  the section's heading line, e.g. {@code ## Settings}
     */
    public static void assertDocumented(Path markdown, String heading, List<Setting<?>> settings) {
        assertDocumented(markdown, heading, settings, false);
    }

    /** Every flag, variable and, with {@code fileFields}, config-file field of {@code settings} is in the section. */
    public static void assertDocumented(Path markdown, String heading, List<Setting<?>> settings, boolean fileFields) {
        String docs;
        try {
            docs = Files.readString(markdown);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = docs.indexOf(heading);
        assertThat(start).as("section %s of %s", heading, markdown).isNotNegative();
        int end = docs.indexOf("\n## ", start + 1);
        String section = docs.substring(start, end < 0 ? docs.length() : end);
        for (Setting<?> setting : settings) {
            for (String flag : setting.flags()) {
                assertThat(section).as("%s in %s", flag, markdown).contains("`" + Setting.dashed(flag) + "`");
            }
            for (String env : setting.envs()) {
                assertThat(section).as("%s in %s", env, markdown).contains("`" + env + "`");
            }
            if (fileFields) {
                setting.field().ifPresent(field -> assertThat(section).contains("`" + field.path() + "`"));
            }
        }
    }
}
