package dev.kgpu.plugin.dra;

/** ResourceSlices could not be read or written; the message says which request failed and why, in one line. */
public final class SliceStoreException extends Exception {

    public SliceStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
