import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public-API baseline of one published module: every public or protected type and member outside {@code internal}
 * packages, one line each, sorted, written to {@code <module>/api/<artifactId>.api} and compared with it on every
 * {@code verify}. An unintended change fails the build with the lines added and removed; an intended one is
 * recorded with {@code -Dbaton.api.update=true} (docs/using-baton.md, "Changing the public API").
 *
 * <p>Also checks that the module's packages all sit under its JPMS name ({@code Automatic-Module-Name}), and that no
 * other module's baseline claims a name that is, or encloses, this one: together these mean no two published modules
 * share a package (no split packages), which the module path would refuse.
 *
 * <p>Run by the build (exec-maven-plugin, {@code verify} phase) as a single-file program with the module's compile
 * class path, so types are read by reflection without initialising them. Arguments: {@code check|update} (or
 * {@code false|true}), the module's JPMS name, its classes directory, its baseline file, the repository root, its
 * packaging.
 */
public final class ApiBaseline {

    private static final String HEADER = "# Public API of %s (%s). Generated: do not edit. On an intended change run%n"
            + "#   ./mvnw -q -ntp verify -DskipTests -Dbaton.api.update=true%n"
            + "# and commit this file with the change.%n";

    public static void main(String[] args) throws IOException {
        if (args.length != 6) {
            fail("usage: ApiBaseline check|update MODULE-NAME CLASSES-DIR BASELINE-FILE REPOSITORY-ROOT PACKAGING");
        }
        if (args[5].equals("pom")) {
            return;                                       // the parent and the BOM: no classes, no jar
        }
        boolean update = args[0].equals("update") || args[0].equals("true");
        String moduleName = args[1];
        Path classes = Path.of(args[2]);
        Path baseline = Path.of(args[3]).toAbsolutePath().normalize();
        Path root = Path.of(args[4]).toAbsolutePath().normalize();
        if (moduleName.isBlank() || moduleName.contains("${") || moduleName.startsWith("(unset")) {
            fail(artifactOf(baseline) + " is published but sets no baton.module.name (its Automatic-Module-Name) in"
                    + " its pom (or set baton.skipPublishing to true there if it is not a library)");
        }
        checkInBom(artifactOf(baseline), root);
        List<String> classNames = classNames(classes);
        if (classNames.isEmpty()) {
            return;                                       // a jar of dependencies only, such as a starter: no API
        }
        checkPackages(moduleName, classNames, baseline, root);

        List<String> current = new ArrayList<>();
        current.addAll(List.of(String.format(HEADER, moduleName, artifactOf(baseline)).split("\\R")));
        current.addAll(signatures(classNames));
        if (update) {
            Files.createDirectories(baseline.getParent());
            Files.write(baseline, current, StandardCharsets.UTF_8);
            System.out.println("api: wrote " + root.relativize(baseline));
            return;
        }
        if (!Files.exists(baseline)) {
            fail(root.relativize(baseline) + " is missing: create it with"
                    + " ./mvnw -q -ntp verify -DskipTests -Dbaton.api.update=true and commit it");
        }
        List<String> recorded = Files.readAllLines(baseline, StandardCharsets.UTF_8);
        if (!recorded.equals(current)) {
            System.err.println(diff(recorded, current, root.relativize(baseline)));
            System.exit(1);
        }
    }

    /** Binary names of the classes under {@code classes}, in file order. */
    private static List<String> classNames(Path classes) throws IOException {
        if (!Files.isDirectory(classes)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(file -> file.toString().endsWith(".class"))
                    .map(file -> classes.relativize(file).toString())
                    .filter(name -> !name.endsWith("module-info.class") && !name.endsWith("package-info.class"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.')
                            .replace('\\', '.'))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** A published module is in baton-bom, so that users importing the BOM get it in the same version. */
    private static void checkInBom(String artifactId, Path root) throws IOException {
        Path bom = root.resolve("baton-bom/pom.xml");
        if (!Files.readString(bom, StandardCharsets.UTF_8).contains("<artifactId>" + artifactId + "</artifactId>")) {
            fail(artifactId + " is published but missing from baton-bom/pom.xml: add its line there (or set"
                    + " baton.skipPublishing to true in its pom if it is not a library)");
        }
    }

    /**
     * Every package must be the module's name or below it, and no other baseline may be for a module whose name is
     * this one's or encloses it (or is enclosed by it): then no package can be in two published modules.
     */
    private static void checkPackages(String moduleName, List<String> classNames, Path baseline, Path root)
            throws IOException {
        Set<String> packages = new TreeSet<>();
        for (String name : classNames) {
            packages.add(name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : "");
        }
        for (String pkg : packages) {
            if (!pkg.equals(moduleName) && !pkg.startsWith(moduleName + ".")) {
                fail("package " + (pkg.isEmpty() ? "(unnamed)" : pkg) + " is outside module " + moduleName
                        + ": every package of a published module sits under its Automatic-Module-Name, so that no"
                        + " two modules share a package");
            }
        }
        List<Path> others;
        try (Stream<Path> dirs = Files.list(root)) {
            others = dirs.map(dir -> dir.toAbsolutePath().normalize().resolve("api")).filter(Files::isDirectory)
                    .flatMap(ApiBaseline::apiFiles)
                    .filter(file -> !file.equals(baseline))
                    .collect(Collectors.toList());
        }
        for (Path other : others) {
            String otherName = moduleNameIn(other);
            if (otherName == null) {
                continue;
            }
            if (otherName.equals(moduleName) || otherName.startsWith(moduleName + ".")
                    || moduleName.startsWith(otherName + ".")) {
                fail("module " + moduleName + " and " + root.relativize(other) + " (" + otherName
                        + ") could share packages: give each published module a name no other one starts with");
            }
        }
    }

    private static Stream<Path> apiFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(file -> file.toString().endsWith(".api")).collect(Collectors.toList()).stream();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String moduleNameIn(Path apiFile) throws IOException {
        try (Stream<String> lines = Files.lines(apiFile, StandardCharsets.UTF_8)) {
            return lines.findFirst().filter(line -> line.startsWith("# Public API of "))
                    .map(line -> line.substring("# Public API of ".length()).split(" ")[0]).orElse(null);
        }
    }

    private static String artifactOf(Path baseline) {
        String file = baseline.getFileName().toString();
        return file.endsWith(".api") ? file.substring(0, file.length() - ".api".length()) : file;
    }

    /** One block per API type, types sorted by name and members sorted within a type. */
    private static List<String> signatures(List<String> classNames) {
        ClassLoader loader = ApiBaseline.class.getClassLoader();
        TreeMap<String, List<String>> blocks = new TreeMap<>();
        for (String name : classNames) {
            Class<?> type;
            try {
                type = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                fail("cannot read " + name + " (" + e + "): is the module's compile class path complete?");
                return List.of();
            }
            if (!isApi(type)) {
                continue;
            }
            List<String> block = new ArrayList<>();
            block.add(header(type));
            block.addAll(members(type));
            blocks.put(type.getName(), block);
        }
        List<String> lines = new ArrayList<>();
        for (List<String> block : blocks.values()) {
            lines.add("");
            lines.addAll(block);
        }
        return lines;
    }

    /** Reachable by users: public (or protected, when nested) all the way out, not synthetic, not internal. */
    private static boolean isApi(Class<?> type) {
        if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        if (Arrays.asList(type.getPackageName().split("\\.")).contains("internal")) {
            return false;
        }
        for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
            int modifiers = c.getModifiers();
            boolean nested = c.getDeclaringClass() != null;
            if (!Modifier.isPublic(modifiers) && !(nested && Modifier.isProtected(modifiers))) {
                return false;
            }
        }
        return true;
    }

    private static String header(Class<?> type) {
        StringBuilder line = new StringBuilder(visibility(type.getModifiers()));
        String kind;
        if (type.isAnnotation()) {
            kind = "@interface";
        } else if (type.isInterface()) {
            kind = "interface";
        } else if (type.isEnum()) {
            kind = "enum";
        } else if (type.isRecord()) {
            kind = "record";
        } else {
            kind = "class";
            if (type.getDeclaringClass() != null && Modifier.isStatic(type.getModifiers())) {
                line.append(" static");
            }
            if (Modifier.isAbstract(type.getModifiers())) {
                line.append(" abstract");
            }
            if (Modifier.isFinal(type.getModifiers())) {
                line.append(" final");
            }
        }
        if (type.isSealed()) {
            line.append(" sealed");
        }
        line.append(' ').append(kind).append(' ').append(name(type)).append(typeParameters(type.getTypeParameters()));
        Type superclass = type.getGenericSuperclass();
        if (kind.equals("class") && superclass != null && superclass != Object.class) {
            line.append(" extends ").append(name(superclass));
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0 && !type.isAnnotation()) {
            line.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(interfaces)
                    .map(ApiBaseline::name).sorted().collect(Collectors.joining(", ")));
        }
        if (type.isSealed()) {
            line.append(" permits ").append(Arrays.stream(type.getPermittedSubclasses()).map(ApiBaseline::name)
                    .sorted().collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    private static List<String> members(Class<?> type) {
        Set<String> lines = new TreeSet<>();
        for (Field field : type.getDeclaredFields()) {
            if (!visible(field)) {
                continue;
            }
            if (field.isEnumConstant()) {
                lines.add("  enum constant " + field.getName());
            } else {
                lines.add("  " + modifiers(field.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED
                        | Modifier.STATIC | Modifier.FINAL | Modifier.VOLATILE | Modifier.TRANSIENT))
                        + name(field.getGenericType()) + " " + field.getName());
            }
        }
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (visible(constructor)) {
                lines.add("  " + modifiers(constructor.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED))
                        + typeParametersWithSpace(constructor.getTypeParameters()) + "<init>" + parameters(constructor)
                        + exceptions(constructor));
            }
        }
        for (Method method : type.getDeclaredMethods()) {
            if (!visible(method) || method.isBridge()) {
                continue;
            }
            int kept = method.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
                    | Modifier.FINAL | Modifier.ABSTRACT | Modifier.SYNCHRONIZED);
            String modifiers = modifiers(kept & ~Modifier.SYNCHRONIZED) + (method.isDefault() ? "default " : "");
            lines.add("  " + modifiers + typeParametersWithSpace(method.getTypeParameters())
                    + name(method.getGenericReturnType()) + " " + method.getName() + parameters(method)
                    + exceptions(method));
        }
        return new ArrayList<>(lines);
    }

    private static boolean visible(Member member) {
        int modifiers = member.getModifiers();
        return !member.isSynthetic() && (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers));
    }

    private static String visibility(int modifiers) {
        return Modifier.isPublic(modifiers) ? "public" : "protected";
    }

    private static String modifiers(int modifiers) {
        String text = Modifier.toString(modifiers);
        return text.isEmpty() ? "" : text + " ";
    }

    private static String parameters(Executable executable) {
        Type[] types = executable.getGenericParameterTypes();
        if (types.length != executable.getParameterCount()) {
            // Inner-class constructors and enum constructors: generic signature omits synthetic parameters.
            types = executable.getParameterTypes();
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            String name = name(types[i]);
            if (executable.isVarArgs() && i == types.length - 1 && name.endsWith("[]")) {
                name = name.substring(0, name.length() - 2) + "...";
            }
            names.add(name);
        }
        return "(" + String.join(", ", names) + ")";
    }

    private static String exceptions(Executable executable) {
        Type[] thrown = executable.getGenericExceptionTypes();
        return thrown.length == 0 ? "" : " throws " + Arrays.stream(thrown).map(ApiBaseline::name).sorted()
                .collect(Collectors.joining(", "));
    }

    private static String typeParametersWithSpace(TypeVariable<?>[] variables) {
        String text = typeParameters(variables);
        return text.isEmpty() ? "" : text + " ";
    }

    private static String typeParameters(TypeVariable<?>[] variables) {
        if (variables.length == 0) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        for (TypeVariable<?> variable : variables) {
            List<String> bounds = Arrays.stream(variable.getBounds()).filter(bound -> bound != Object.class)
                    .map(ApiBaseline::name).collect(Collectors.toList());
            parts.add(variable.getName() + (bounds.isEmpty() ? "" : " extends " + String.join(" & ", bounds)));
        }
        return "<" + String.join(", ", parts) + ">";
    }

    /** A type as source would spell it, the same on every JDK (the JDK's own toString forms have changed). */
    private static String name(Type type) {
        if (type instanceof Class<?> c) {
            if (c.isArray()) {
                return name(c.getComponentType()) + "[]";
            }
            return c.getCanonicalName() != null ? c.getCanonicalName() : c.getName();
        }
        if (type instanceof ParameterizedType p) {
            return name(p.getRawType()) + "<" + Arrays.stream(p.getActualTypeArguments()).map(ApiBaseline::name)
                    .collect(Collectors.joining(", ")) + ">";
        }
        if (type instanceof GenericArrayType a) {
            return name(a.getGenericComponentType()) + "[]";
        }
        if (type instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) {
                return "? super " + name(w.getLowerBounds()[0]);
            }
            Type[] upper = w.getUpperBounds();
            return upper.length == 0 || upper[0] == Object.class ? "?" : "? extends " + name(upper[0]);
        }
        if (type instanceof TypeVariable<?> v) {
            return v.getName();
        }
        return type.getTypeName();
    }

    /** The lines only in the baseline (-) and only in the build (+), each under the type it belongs to. */
    private static String diff(List<String> recorded, List<String> current, Path baseline) {
        Set<String> before = new LinkedHashSet<>(withOwners(recorded));
        Set<String> after = new LinkedHashSet<>(withOwners(current));
        StringBuilder out = new StringBuilder();
        out.append("The public API differs from ").append(baseline).append(":\n");
        for (String line : before) {
            if (!after.contains(line)) {
                out.append("  - ").append(line).append('\n');
            }
        }
        for (String line : after) {
            if (!before.contains(line)) {
                out.append("  + ").append(line).append('\n');
            }
        }
        out.append("If the change is intended, record it with\n")
                .append("  ./mvnw -q -ntp verify -DskipTests -Dbaton.api.update=true\n")
                .append("and commit ").append(baseline).append(" with it; otherwise restore what the - lines name.");
        return out.toString();
    }

    /** Member lines prefixed with their type, so a diff line says where it belongs. */
    private static List<String> withOwners(List<String> lines) {
        List<String> out = new ArrayList<>();
        String owner = "";
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("  ")) {
                out.add(owner + ":" + line.substring(1));
            } else {
                owner = ownerName(line);
                out.add(line);
            }
        }
        return out;
    }

    /** The type name in a header line: the word after its kind. */
    private static String ownerName(String header) {
        List<String> words = Arrays.asList(header.split(" "));
        for (String kind : new String[] {"@interface", "interface", "enum", "record", "class"}) {
            int at = words.indexOf(kind);
            if (at >= 0 && at + 1 < words.size()) {
                return words.get(at + 1).split("<")[0];
            }
        }
        return header;
    }

    private static void fail(String message) {
        System.err.println("api: " + message);
        System.exit(1);
    }
}
