package dev.kgpu.plugin.deviceplugin.grpc;

import dev.kgpu.plugin.deviceplugin.Kubelet;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.function.Consumer;

/**
 * Watches the device-plugins directory (inotify through the JDK's WatchService) on one daemon thread
 * named {@value #THREAD_NAME} and reports what the device-plugin front-end acts on: {@code kubelet.sock} created (the
 * kubelet restarted) or deleted (it is restarting), and any other file deleted (a plugin socket may be
 * gone). An overflow is reported as a kubelet restart, so nothing is missed. Asked to, it first reports a
 * {@code kubelet.sock} that does not exist yet as stopped, in order with what follows.
 */
final class SocketDirectoryWatcher implements AutoCloseable {

    static final String THREAD_NAME = "plugin-socket-watcher";
    private static final System.Logger LOG = System.getLogger(SocketDirectoryWatcher.class.getName());

    private final WatchService service;
    private final Thread thread;
    private volatile boolean closing;

    private SocketDirectoryWatcher(WatchService service, Path directory, String kubeletSocketName,
                                   boolean reportMissingKubelet, Consumer<Kubelet.Change> changes) {
        this.service = service;
        this.thread = Thread.ofPlatform().name(THREAD_NAME).daemon(true)
                .unstarted(() -> watch(directory, kubeletSocketName, reportMissingKubelet, changes));
    }

    /**
     * Starts watching {@code directory} (created when missing).
     *
     * @param reportMissingKubelet report {@link Kubelet.Change.KubeletStopped} first when {@code kubelet.sock}
     *                             does not exist once the directory is watched
     */
    static SocketDirectoryWatcher start(Path directory, String kubeletSocketName, boolean reportMissingKubelet,
                                        Consumer<Kubelet.Change> changes) throws IOException {
        Files.createDirectories(directory);
        WatchService service = FileSystems.getDefault().newWatchService();
        directory.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        SocketDirectoryWatcher watcher = new SocketDirectoryWatcher(service, directory, kubeletSocketName,
                reportMissingKubelet, changes);
        watcher.thread.start();
        return watcher;
    }

    private void watch(Path directory, String kubeletSocketName, boolean reportMissingKubelet,
                       Consumer<Kubelet.Change> changes) {
        // after the directory is watched: a kubelet.sock created from now on is reported after this
        if (reportMissingKubelet && !Files.exists(directory.resolve(kubeletSocketName))) {
            changes.accept(new Kubelet.Change.KubeletStopped());
        }
        try {
            while (true) {
                WatchKey key = service.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        changes.accept(new Kubelet.Change.KubeletStarted());
                        continue;
                    }
                    String name = event.context().toString();
                    boolean kubelet = name.equals(kubeletSocketName);
                    if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE && kubelet) {
                        changes.accept(new Kubelet.Change.KubeletStarted());
                    } else if (event.kind() == StandardWatchEventKinds.ENTRY_DELETE) {
                        changes.accept(kubelet ? new Kubelet.Change.KubeletStopped() : new Kubelet.Change.SocketDeleted(name));
                    }
                }
                if (!key.reset()) {
                    if (closing) {
                        return;
                    }
                    LOG.log(System.Logger.Level.WARNING, "{0} is no longer watchable (deleted?); kubelet restarts are no"
                            + " longer noticed", directory);
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            service.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the watch service: {0}", e.getMessage());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
