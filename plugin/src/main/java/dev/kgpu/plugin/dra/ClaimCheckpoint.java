package dev.kgpu.plugin.dra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.kgpu.cdi.DurableFiles;
import dev.kgpu.plugin.node.ClaimRef;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The claims this driver prepared, on disk, so that a restarted plugin neither forgets a claim nor prepares it again.
 *
 * <p>The file ({@value DraNames#CHECKPOINT_FILE} in the driver's folder) is versioned JSON checked by a checksum, as
 * the kubelet's checkpoints are: {@code {"kind":"kgpu-dra-checkpoint","version":1,"checksum":"sha256:<hex>","data":{
 * "nodeBootId":...,"preparedClaims":{<uid>:{"namespace","name","devices":[...]}}}}}, the checksum taken over
 * {@code data} as written (keys sorted). Every change replaces the whole file atomically ({@link DurableFiles}: a
 * temporary file in the same folder renamed over the old one), so a crash of the plugin leaves the old content or the
 * new, and a restarted plugin reads the last change {@link #put} or {@link #remove} made.
 *
 * <p>Nothing waits for the disk while this boot's id is known ({@link #survives}): what the file holds matters only
 * until the machine goes down, since a power loss or a kernel crash means a new boot, and a new boot forgets the
 * claims of an earlier one (below), whether the file came back old, new or torn (a torn one is moved aside). The two
 * disk waits a power-loss-proof write takes (the file forced before the rename, the folder after it) would protect
 * nothing, on the path of every NodePrepareResources and NodeUnprepareResources. Without a boot id a later boot cannot
 * tell this boot's claims from its own, so then every change is forced to disk before it returns.
 *
 * <p>On open, a file that is not such JSON, has another version or a wrong checksum is moved aside to
 * {@code <file>.corrupt} and the driver starts with no prepared claims; so does a file written in an earlier boot
 * ({@code nodeBootId} differs: the claims' containers and their CDI specs in {@code /var/run/cdi} are gone). Both are
 * safe: preparing a claim again writes the same spec, and unpreparing removes a claim's spec by its UID whether the
 * checkpoint knows the claim or not. {@link #recovery()} says which happened, in one line.
 *
 * <p>Not thread-safe: the {@link ClaimPreparer} uses it under its lock.
 */
public final class ClaimCheckpoint {

    static final String KIND = "kgpu-dra-checkpoint";
    static final int VERSION = 1;
    private static final System.Logger LOG = System.getLogger(ClaimCheckpoint.class.getName());
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .build();

    private final Path file;
    private final String bootId;
    /** Whether this boot's id was read (not only taken from the file): {@link #survives}. */
    private final boolean bootKnown;
    private final Map<String, PreparedClaim> claims = new LinkedHashMap<>();
    private final Optional<String> recovery;

    private ClaimCheckpoint(Path file, String bootId, boolean bootKnown, Optional<String> recovery) {
        this.file = file;
        this.bootId = bootId;
        this.bootKnown = bootKnown;
        this.recovery = recovery;
    }

    /**
     * Reads {@code file} (none yet: no claims), as described above.
     *
     * @param bootId this boot's {@code /proc/sys/kernel/random/boot_id}, empty when unknown: then nothing is discarded,
     *               and the boot id the file holds is kept in it, so that a later start that can read the boot id
     *               still tells an earlier boot's claims apart; a file without one (written without a boot id) adopts
     *               this boot's, as NVIDIA's driver does with its legacy checkpoints
     */
    public static ClaimCheckpoint open(Path file, String bootId) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(bootId, "bootId");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new ClaimCheckpoint(file, bootId, !bootId.isEmpty(), Optional.empty());
        } catch (IOException e) {
            return aside(file, bootId, "it could not be read (" + e.getMessage() + ")");
        }
        Data data;
        try {
            data = decode(bytes);
        } catch (CorruptException e) {
            return aside(file, bootId, e.getMessage());
        }
        if (!bootId.isEmpty() && !data.nodeBootId().isEmpty() && !bootId.equals(data.nodeBootId())) {
            String why = "checkpoint " + file + " was written in an earlier boot (" + data.nodeBootId() + ", now " + bootId
                    + "): its " + data.preparedClaims().size() + " claims are forgotten and prepared again when the kubelet asks";
            LOG.log(System.Logger.Level.INFO, why);
            return new ClaimCheckpoint(file, bootId, true, Optional.of(why));
        }
        boolean bootKnown = !bootId.isEmpty();
        if (bootId.isEmpty()) {
            bootId = data.nodeBootId();
        } else if (data.nodeBootId().isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "checkpoint {0} holds no boot id (written when it could not be read): its {1}"
                    + " claims are taken as this boot''s ({2})", file, data.preparedClaims().size(), bootId);
        }
        ClaimCheckpoint checkpoint = new ClaimCheckpoint(file, bootId, bootKnown, Optional.empty());
        data.preparedClaims().forEach((uid, claim) -> checkpoint.claims.put(uid, claim.toDomain(uid)));
        return checkpoint;
    }

    private static ClaimCheckpoint aside(Path file, String bootId, String problem) {
        Path corrupt = file.resolveSibling(file.getFileName() + ".corrupt");
        String moved;
        try {
            Files.move(file, corrupt, StandardCopyOption.REPLACE_EXISTING);
            moved = "moved to " + corrupt;
        } catch (IOException e) {
            moved = "and could not be moved aside (" + e.getMessage() + "); it is overwritten at the next prepare";
        }
        String why = "checkpoint " + file + " was unusable: " + problem + "; " + moved + ", starting with no prepared"
                + " claims (the kubelet's next calls prepare them again; unprepare removes a claim's CDI spec by its UID)";
        LOG.log(System.Logger.Level.ERROR, why);
        return new ClaimCheckpoint(file, bootId, !bootId.isEmpty(), Optional.of(why));
    }

    /** What opening had to give up, in one line: a corrupt file moved aside or an earlier boot's claims forgotten. */
    public Optional<String> recovery() {
        return recovery;
    }

    public Path file() {
        return file;
    }

    public Optional<PreparedClaim> get(String uid) {
        return Optional.ofNullable(claims.get(uid));
    }

    /** Every prepared claim, oldest first. */
    public Collection<PreparedClaim> claims() {
        return List.copyOf(claims.values());
    }

    /** Records {@code claim} as prepared, on disk first. */
    public void put(PreparedClaim claim) throws CheckpointException {
        Map<String, PreparedClaim> next = new LinkedHashMap<>(claims);
        next.put(claim.claim().uid(), claim);
        write(next);
        claims.put(claim.claim().uid(), claim);
    }

    /** Forgets the claim {@code uid}, on disk first; false when it was not there (nothing written). */
    public boolean remove(String uid) throws CheckpointException {
        if (!claims.containsKey(uid)) {
            return false;
        }
        Map<String, PreparedClaim> next = new LinkedHashMap<>(claims);
        next.remove(uid);
        write(next);
        claims.remove(uid);
        return true;
    }

    private void write(Map<String, PreparedClaim> content) throws CheckpointException {
        Map<String, StoredClaim> stored = new TreeMap<>();
        content.forEach((uid, claim) -> stored.put(uid, StoredClaim.of(claim)));
        try {
            byte[] bytes = encode(new Data(bootId, stored));
            Files.createDirectories(file.toAbsolutePath().getParent());
            DurableFiles.replace(file, bytes, file.getFileName() + ".", Set.of(), survives());
        } catch (IOException e) {
            throw new CheckpointException("checkpoint " + file + " could not be written: " + e.getMessage(), e);
        }
    }

    /**
     * What each change must survive: a crash of the plugin while this boot's id is known (a new boot forgets this
     * boot's claims, so forcing them to disk would protect nothing), a power loss too when it is not.
     */
    DurableFiles.Survives survives() {
        return bootKnown ? DurableFiles.Survives.PROCESS_CRASH : DurableFiles.Survives.POWER_LOSS;
    }

    // ---- the file's format ------------------------------------------------------------------------------------

    static byte[] encode(Data data) throws IOException {
        ObjectFile object = new ObjectFile(KIND, VERSION, checksum(data), data);
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(object);
    }

    static Data decode(byte[] bytes) throws CorruptException {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new CorruptException("it is not JSON (" + firstLine(e) + ")");
        }
        if (root == null || !root.isObject()) {
            throw new CorruptException("it is not a JSON object");
        }
        if (!KIND.equals(root.path("kind").asText())) {
            throw new CorruptException("kind was '" + root.path("kind").asText() + "' but it must be " + KIND);
        }
        if (!root.path("version").isInt() || root.path("version").asInt() != VERSION) {
            throw new CorruptException("version was '" + root.path("version") + "' but it must be " + VERSION
                    + " (written by another kgpu version?)");
        }
        Data data;
        try {
            data = JSON.treeToValue(root.path("data"), Data.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new CorruptException("data is malformed (" + firstLine(e) + ")");
        }
        if (data == null) {
            throw new CorruptException("it has no data");
        }
        String expected;
        try {
            expected = checksum(data);
        } catch (IOException e) {
            throw new CorruptException("data cannot be checked (" + firstLine(e) + ")");
        }
        String found = root.path("checksum").asText();
        if (!expected.equals(found)) {
            throw new CorruptException("checksum was '" + found + "' but the data sums to '" + expected + "'");
        }
        return data;
    }

    private static String checksum(Data data) throws IOException {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(JSON.writeValueAsBytes(data));
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    static final class CorruptException extends Exception {
        CorruptException(String message) {
            super(message);
        }
    }

    record ObjectFile(String kind, int version, String checksum, Data data) {
    }

    record Data(String nodeBootId, Map<String, StoredClaim> preparedClaims) {
        Data {
            Objects.requireNonNull(nodeBootId, "nodeBootId");
            preparedClaims = new TreeMap<>(Objects.requireNonNull(preparedClaims, "preparedClaims"));
        }
    }

    record StoredClaim(String namespace, String name, List<StoredDevice> devices) {
        StoredClaim {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
        }

        static StoredClaim of(PreparedClaim claim) {
            return new StoredClaim(claim.claim().namespace(), claim.claim().name(), claim.devices().stream()
                    .map(d -> new StoredDevice(d.requests(), d.pool(), d.device(), d.uuid(), d.cdiDeviceIds())).toList());
        }

        PreparedClaim toDomain(String uid) {
            return new PreparedClaim(new ClaimRef(namespace, name, uid), devices.stream()
                    .map(d -> new PreparedDevice(d.requests(), d.pool(), d.device(), d.uuid(), d.cdiDeviceIds())).toList());
        }
    }

    record StoredDevice(List<String> requests, String pool, String device, String uuid, List<String> cdiDeviceIds) {
        StoredDevice {
            requests = List.copyOf(Objects.requireNonNull(requests, "requests"));
            Objects.requireNonNull(pool, "pool");
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(uuid, "uuid");
            cdiDeviceIds = List.copyOf(Objects.requireNonNull(cdiDeviceIds, "cdiDeviceIds"));
        }
    }
}
