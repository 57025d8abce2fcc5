package dev.kgpu.benchmarks;

/** Something the benchmark needs did not happen (an agent exited, a wait ran out, a tool is missing): one line. */
final class BenchmarkException extends RuntimeException {

    BenchmarkException(String message) {
        super(message);
    }

    BenchmarkException(String message, Throwable cause) {
        super(message, cause);
    }
}
