package dev.kgpu.exporter.exposition;

/** The two formats {@code /metrics} speaks. */
public enum ExpositionFormat {
    /** Prometheus text format 0.0.4, what dcgm-exporter serves. */
    TEXT("text/plain; version=0.0.4; charset=utf-8"),
    /** OpenMetrics 1.0.0, served when the scraper's Accept header asks for {@code application/openmetrics-text}. */
    OPENMETRICS("application/openmetrics-text; version=1.0.0; charset=utf-8");

    private final String contentType;

    ExpositionFormat(String contentType) {
        this.contentType = contentType;
    }

    public String contentType() {
        return contentType;
    }

    /** The format an {@code Accept} header asks for; text unless OpenMetrics is named with a q above 0. */
    public static ExpositionFormat forAccept(String accept) {
        if (accept == null || !accept.contains("application/openmetrics-text")) {
            return TEXT;
        }
        for (String part : accept.split(",")) {
            String[] params = part.strip().split(";");
            if (!params[0].strip().equals("application/openmetrics-text")) {
                continue;
            }
            for (int i = 1; i < params.length; i++) {
                String param = params[i].strip();
                if (param.startsWith("q=")) {
                    try {
                        if (Double.parseDouble(param.substring(2)) <= 0) {
                            return TEXT;
                        }
                    } catch (NumberFormatException e) {
                        return TEXT;
                    }
                }
            }
            return OPENMETRICS;
        }
        return TEXT;
    }
}
