package io.simrdma.dat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The static registry: a dat.conf file mapping IA names to providers, as the DAT registry's
 * {@code /etc/dat.conf} does in C.
 *
 * <h2>Format</h2>
 * One entry per line, eight fields separated by spaces or tabs:
 * <pre>
 * # comment: from '#' to the end of the line (outside quotes); blank lines are ignored
 * &lt;ia-name&gt; &lt;api-version&gt; &lt;thread-safety&gt; &lt;default&gt; &lt;provider&gt; &lt;provider-version&gt;
 * &lt;ia-params&gt; &lt;platform-params&gt;
 * sim0     u1.2  threadsafe  default     simrdma  simrdma.0.1  "sim:fabric0/dev0"  ""
 * </pre>
 * <ul>
 * <li>{@code ia-name}: the name a consumer opens; at most 255 characters.</li>
 * <li>{@code api-version}: {@code u<major>.<minor>}, the DAT API version ({@code u} for uDAPL).</li>
 * <li>{@code thread-safety}: {@code threadsafe} or {@code nonthreadsafe}.</li>
 * <li>{@code default}: {@code default} or {@code nondefault} (recorded, not used).</li>
 * <li>{@code provider}: the {@link io.simrdma.dat.spi.DatProvider#name() name} of a provider found by
 *     {@link java.util.ServiceLoader} (in C dat.conf: the provider library).</li>
 * <li>{@code provider-version}: {@code [<id>.]<major>.<minor>}, for example {@code simrdma.0.1}.</li>
 * <li>{@code ia-params}: the instance data given to the provider's init
 *     ({@code dat_provider_init}'s {@code instance_data}).</li>
 * <li>{@code platform-params}: recorded, not interpreted.</li>
 * </ul>
 * A field is double-quoted to hold spaces or to be empty ({@code ""}); there are no escapes, and a
 * quote cannot appear inside a field. A keyword is matched ignoring case. Two entries with the same
 * IA name, API version and thread safety are an error. Every error names the source and line, for
 * example {@code "/etc/x.conf:3: expected 8 fields, found 5"}, and is a {@link DatException} of type
 * {@code DAT_INVALID_PARAMETER}.
 *
 * <h2>Location</h2>
 * {@link #locate()} takes the first of:
 * <ol>
 * <li>the system property {@code dat.conf}: a file path (the empty string means no static
 *     registry);</li>
 * <li>the environment variable {@code DAT_OVERRIDE}, as the C registry reads it: a file path;</li>
 * <li>the class path resource {@code dat.conf} (at the root of the class path);</li>
 * <li>{@code ~/.dat.conf} (in {@code user.home}), if it exists.</li>
 * </ol>
 * Otherwise the static registry is empty; providers still serve names of their own syntax. A file
 * named by 1 or 2 that cannot be read fails with {@code DAT_INTERNAL_ERROR} ("the DAT static
 * registry is missing", dat_registry_list_providers). {@code /etc/dat.conf} is not read: its
 * entries name C libraries.
 *
 * <p>Thread safety: immutable.
 */
public final class DatConf {

    /** The system property that names the dat.conf file. */
    public static final String SYSTEM_PROPERTY = "dat.conf";
    /** The environment variable that names the dat.conf file. */
    public static final String ENVIRONMENT_VARIABLE = "DAT_OVERRIDE";
    /** The class path resource read if neither is set. */
    public static final String RESOURCE = "dat.conf";
    /** The file in the user's home directory read last. */
    public static final String USER_FILE = ".dat.conf";

    private static final int FIELDS = 8;
    private static final Pattern API_VERSION = Pattern.compile("[uU](\\d{1,9})\\.(\\d{1,9})");
    private static final Pattern PROVIDER_VERSION = Pattern.compile("(?:(.+)\\.)?(\\d{1,9})\\.(\\d{1,9})");

    private static final DatConf EMPTY = new DatConf("none", List.of());

    private final String source;
    private final List<DatConfEntry> entries;

    private DatConf(String source, List<DatConfEntry> entries) {
        this.source = source;
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
    }

    /** An empty static registry. */
    public static DatConf empty() {
        return EMPTY;
    }

    /** Where the entries came from: a path, a resource URL, or {@code "none"}. */
    public String source() {
        return source;
    }

    /** The entries, in file order. */
    public List<DatConfEntry> entries() {
        return entries;
    }

    /** The entries for {@code iaName}, in file order. */
    public List<DatConfEntry> entriesFor(String iaName) {
        List<DatConfEntry> result = new ArrayList<>();
        for (DatConfEntry e : entries) {
            if (e.iaName().equals(iaName)) {
                result.add(e);
            }
        }
        return result;
    }

    /**
     * Parses dat.conf text.
     *
     * @param source names the text in error messages
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a malformed line
     */
    public static DatConf parse(String text, String source) {
        Checks.notNull(text, "text");
        return parse(new StringReader(text), source);
    }

    /**
     * Parses dat.conf text from {@code reader} (not closed).
     *
     * @param source names the text in error messages
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a malformed line,
     *         {@code DAT_INTERNAL_ERROR} if reading fails
     */
    public static DatConf parse(Reader reader, String source) {
        Checks.notNull(reader, "reader");
        Checks.notNull(source, "source");
        List<DatConfEntry> entries = new ArrayList<>();
        BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        int lineNumber = 0;
        try {
            String line;
            while ((line = in.readLine()) != null) {
                lineNumber++;
                List<String> fields = split(line, source, lineNumber);
                if (fields.isEmpty()) {
                    continue;
                }
                DatConfEntry entry = entry(fields, source, lineNumber);
                for (DatConfEntry other : entries) {
                    if (other.providerInfo().equals(entry.providerInfo())) {
                        throw error(
                                source,
                                lineNumber,
                                "duplicate entry for IA name '" + entry.iaName()
                                        + "' (same version and thread safety as line " + other.lineNumber() + ")");
                    }
                }
                entries.add(entry);
            }
        } catch (IOException e) {
            throw cannotRead(source, e);
        }
        return new DatConf(source, entries);
    }

    /**
     * Reads and parses {@code file}.
     *
     * @throws DatException {@code DAT_INTERNAL_ERROR} if the file cannot be read (the static registry
     *         is missing), {@code DAT_INVALID_PARAMETER} for a malformed line
     */
    public static DatConf read(Path file) {
        Checks.notNull(file, "file");
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(r, file.toString());
        } catch (IOException e) {
            throw new DatException(
                    DatReturnType.INTERNAL_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    "the DAT static registry " + file + " is missing or unreadable",
                    e);
        }
    }

    /**
     * The static registry of this process, found as the class description says, using the real
     * system properties, environment, context class loader and home directory.
     *
     * @throws DatException as {@link #locate(UnaryOperator, UnaryOperator, ClassLoader, Path)}
     */
    public static DatConf locate() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        String home = System.getProperty("user.home");
        return locate(
                System::getProperty,
                System::getenv,
                loader != null ? loader : DatConf.class.getClassLoader(),
                home != null ? Path.of(home) : null);
    }

    /**
     * The static registry found in the given places, in the order the class description gives.
     *
     * @param systemProperty looks up a system property (null if unset)
     * @param environment looks up an environment variable (null if unset)
     * @param loader the class loader for the {@code dat.conf} resource
     * @param userHome the home directory; null to skip {@code ~/.dat.conf}
     * @throws DatException {@code DAT_INTERNAL_ERROR} if the file named by the property or the
     *         variable cannot be read, {@code DAT_INVALID_PARAMETER} for a malformed line
     */
    public static DatConf locate(
            UnaryOperator<String> systemProperty,
            UnaryOperator<String> environment,
            ClassLoader loader,
            Path userHome) {
        Checks.notNull(systemProperty, "systemProperty");
        Checks.notNull(environment, "environment");
        Checks.notNull(loader, "loader");
        String property = systemProperty.apply(SYSTEM_PROPERTY);
        if (property != null) {
            return property.isEmpty() ? EMPTY : read(Path.of(property));
        }
        String override = environment.apply(ENVIRONMENT_VARIABLE);
        if (override != null && !override.isEmpty()) {
            return read(Path.of(override));
        }
        URL resource = loader.getResource(RESOURCE);
        if (resource != null) {
            try (InputStream in = resource.openStream()) {
                return parse(new InputStreamReader(in, StandardCharsets.UTF_8), resource.toString());
            } catch (IOException e) {
                throw cannotRead(resource.toString(), e);
            }
        }
        if (userHome != null) {
            Path user = userHome.resolve(USER_FILE);
            if (Files.isRegularFile(user)) {
                return read(user);
            }
        }
        return EMPTY;
    }

    private static List<String> split(String line, String source, int lineNumber) {
        List<String> fields = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (isSeparator(c)) {
                i++;
            } else if (c == '#') {
                break;
            } else if (c == '"') {
                int end = line.indexOf('"', i + 1);
                if (end < 0) {
                    throw error(source, lineNumber, "unterminated quoted field at column " + (i + 1));
                }
                fields.add(line.substring(i + 1, end));
                i = end + 1;
                if (i < n && !isSeparator(line.charAt(i))) {
                    throw error(source, lineNumber, "no space after the quoted field ending at column " + i);
                }
            } else {
                int start = i;
                while (i < n && !isSeparator(line.charAt(i)) && line.charAt(i) != '#') {
                    if (line.charAt(i) == '"') {
                        throw error(source, lineNumber, "quote inside a field at column " + (i + 1));
                    }
                    i++;
                }
                fields.add(line.substring(start, i));
            }
        }
        return fields;
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f';
    }

    private static DatConfEntry entry(List<String> f, String source, int lineNumber) {
        if (f.size() != FIELDS) {
            throw error(
                    source,
                    lineNumber,
                    "expected " + FIELDS + " fields (<ia-name> <api-version> <thread-safety>"
                            + " <default> <provider> <provider-version> <ia-params> <platform-params>), found "
                            + f.size());
        }
        Matcher api = API_VERSION.matcher(f.get(1));
        if (!api.matches()) {
            throw error(source, lineNumber, "api-version '" + f.get(1) + "' is not u<major>.<minor>");
        }
        boolean threadSafe = keyword(f.get(2), "threadsafe", "nonthreadsafe", "thread-safety", source, lineNumber);
        boolean isDefault = keyword(f.get(3), "default", "nondefault", "default", source, lineNumber);
        Matcher pv = PROVIDER_VERSION.matcher(f.get(5));
        if (!pv.matches()) {
            throw error(source, lineNumber, "provider-version '" + f.get(5) + "' is not [<id>.]<major>.<minor>");
        }
        try {
            return new DatConfEntry(
                    f.get(0),
                    Integer.parseInt(api.group(1)),
                    Integer.parseInt(api.group(2)),
                    threadSafe,
                    isDefault,
                    f.get(4),
                    pv.group(1) == null ? "" : pv.group(1),
                    Integer.parseInt(pv.group(2)),
                    Integer.parseInt(pv.group(3)),
                    f.get(6),
                    f.get(7),
                    lineNumber);
        } catch (DatException e) {
            throw error(source, lineNumber, e.detail());
        }
    }

    private static boolean keyword(String value, String yes, String no, String field, String source, int lineNumber) {
        if (value.equalsIgnoreCase(yes)) {
            return true;
        }
        if (value.equalsIgnoreCase(no)) {
            return false;
        }
        throw error(source, lineNumber, field + " '" + value + "' is neither " + yes + " nor " + no);
    }

    private static DatException cannotRead(String source, IOException e) {
        return new DatException(
                DatReturnType.INTERNAL_ERROR,
                DatReturnSubtype.NO_SUBTYPE,
                "cannot read the DAT static registry " + source,
                e);
    }

    private static DatException error(String source, int lineNumber, String problem) {
        return DatException.invalidParameter(source + ":" + lineNumber + ": " + problem);
    }

    @Override
    public String toString() {
        return "DatConf[" + source + ", " + entries.size() + " entries]";
    }
}
