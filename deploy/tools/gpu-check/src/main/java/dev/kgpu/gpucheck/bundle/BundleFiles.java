package dev.kgpu.gpucheck.bundle;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Makes a staged bundle small once compressed ({@code deploy/tools/gpu-check/bundle} calls it before {@code tar}):
 * every jar is rewritten with its entries stored instead of deflated, same names, order and times, so that
 * xz compresses the class files of all four agents together (about 19 MiB instead of 41 MiB for their
 * libraries); then files with the same content are hard-linked to one copy, which tar stores once (the
 * four agents share most of their libraries).
 */
public final class BundleFiles {

    private BundleFiles() {
    }

    static final Setting<String> STAGE = Setting.of(List.of("stage"), List.of(), ValueType.string(), "",
            "the staged bundle folder");

    /** Reads the command line with the agents' shared loader: one line naming a bad flag, or --help. */
    static Startup<Path> stage(String[] args) {
        return Startup.load("bundle-files", () -> new ConfigLoader<>(new ConfigLoader.Agent<>("bundle-files",
                List.of(STAGE), resolved -> {
                    String stage = resolved.get(STAGE);
                    if (stage.isBlank() || !Files.isDirectory(Path.of(stage))) {
                        resolved.fail(STAGE, stage, "must be the staged bundle folder");
                    }
                    return Path.of(stage);
                }), args, name -> null).load());
    }

    /** {@code BundleFiles --stage=<staged folder>}: prints how many jars were rewritten and files linked. */
    public static void main(String[] args) throws IOException {
        Path stage = switch (stage(args)) {
            case Startup.Exit<Path> exit -> {
                System.exit(exit.print(System.out, System.err));
                yield null;
            }
            case Startup.Run<Path>(Path read) -> read;
        };
        int jars = storeJars(stage);
        int linked = linkDuplicates(stage);
        System.out.println("bundle: " + jars + " jars stored uncompressed, " + linked + " duplicate files hard-linked");
    }

    /** Rewrites every jar under {@code folder} with stored entries; returns how many. */
    public static int storeJars(Path folder) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.walk(folder)) {
            jars = files.filter(p -> p.toString().endsWith(".jar") && Files.isRegularFile(p)).sorted().toList();
        }
        for (Path jar : jars) {
            Path temp = jar.resolveSibling(jar.getFileName() + ".stored");
            store(jar, temp);
            Files.move(temp, jar, StandardCopyOption.REPLACE_EXISTING);
        }
        return jars.size();
    }

    /** Copies {@code jar} to {@code out} with every entry stored (no compression). */
    static void store(Path jar, Path out) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar));
             ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(out))) {
            zip.setMethod(ZipOutputStream.STORED);
            ZipEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                byte[] data = in.readAllBytes();
                ZipEntry stored = new ZipEntry(entry.getName());
                stored.setMethod(ZipEntry.STORED);
                stored.setTime(entry.getTime());
                stored.setSize(data.length);
                stored.setCompressedSize(data.length);
                CRC32 crc = new CRC32();
                crc.update(data);
                stored.setCrc(crc.getValue());
                if (entry.getExtra() != null) {
                    stored.setExtra(entry.getExtra());
                }
                zip.putNextEntry(stored);
                zip.write(data);
                zip.closeEntry();
            }
        }
    }

    /** Replaces each file whose content another file under {@code folder} already has with a hard link to it. */
    public static int linkDuplicates(Path folder) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).sorted().toList();
        }
        Map<String, Path> first = new HashMap<>();
        int linked = 0;
        for (Path file : files) {
            String key = Files.size(file) + ":" + sha256(file) + ":" + Files.isExecutable(file);
            Path original = first.putIfAbsent(key, file);
            if (original != null) {
                Path temp = file.resolveSibling(file.getFileName() + ".link");
                Files.createLink(temp, original);
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
                linked++;
            }
        }
        return linked;
    }

    private static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
