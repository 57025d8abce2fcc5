package dev.kgpu.gpucheck.smi;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi -q -x} into {@link NodeValues}. nvidia-smi writes values with units
 * ({@code 81559 MiB}, {@code 31 C}, {@code 72.45 W}, {@code 345 MHz}, {@code 0 %}), {@code N/A} or
 * {@code [Not Supported]} where it has none, and {@code Enabled}/{@code Disabled} for modes; power draw
 * moved between drivers ({@code power_readings/power_draw} before 535, {@code gpu_power_readings/power_draw},
 * then {@code average_power_draw}/{@code instant_power_draw}), so the first of those that holds a number wins.
 *
 * <p>The document starts with a DOCTYPE naming nvidia-smi's DTD file; the parser neither loads it nor any
 * other external entity.
 */
public final class SmiXml {

    /** Which XML element the power draw was read from (a {@link Val.Text} under this key). */
    public static final String POWER_SOURCE = "smi.power_draw_element";

    private static final Pattern NUMBER = Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*(MiB|KiB|GiB|C|W|MHz|%)?");

    private static final List<String> NUMBER_PATHS = List.of(
            Fields.MINOR_NUMBER, Fields.FB_TOTAL, Fields.FB_RESERVED, Fields.FB_USED, Fields.FB_FREE,
            Fields.GPU_TEMP, Fields.MEMORY_TEMP, Fields.SM_CLOCK, Fields.MEM_CLOCK,
            Fields.GPU_UTIL, Fields.MEMORY_UTIL, Fields.ENCODER_UTIL, Fields.DECODER_UTIL,
            Fields.REPLAY_COUNTER, Fields.REMAPPED_CORRECTABLE, Fields.REMAPPED_UNCORRECTABLE);

    private static final List<String> TEXT_PATHS = List.of(
            Fields.UUID, Fields.PRODUCT_NAME, Fields.PCI_BUS_ID, Fields.MIG_CURRENT, Fields.MIG_PENDING,
            Fields.ECC_CURRENT, Fields.REMAPPED_PENDING, Fields.REMAPPED_FAILURE);

    private static final List<String> POWER_PATHS = List.of(
            "gpu_power_readings.power_draw", "gpu_power_readings.average_power_draw",
            "gpu_power_readings.instant_power_draw", "power_readings.power_draw");

    private static final Set<String> NOT_AVAILABLE = Set.of("n/a", "[n/a]", "not supported", "[not supported]",
            "unknown error", "[unknown error]", "insufficient permissions", "[insufficient permissions]",
            "requested functionality has been deprecated", "");

    private SmiXml() {
    }

    /**
     * Parses the XML.
     *
     * @param source       where it came from, for the report
     * @param computeCaps  compute capability by PCI bus id from {@code --query-gpu=pci.bus_id,compute_cap},
     *                     empty when that query is not available
     * @throws IllegalArgumentException naming what is wrong with the document
     */
    public static NodeValues parse(String xml, String source, Map<String, String> computeCaps) {
        Element root = document(xml).getDocumentElement();
        if (!root.getTagName().equals("nvidia_smi_log")) {
            throw new IllegalArgumentException("nvidia-smi's XML root element was '" + root.getTagName()
                    + "' but it must be nvidia_smi_log");
        }
        Map<String, Val> system = new LinkedHashMap<>();
        system.put(Fields.DRIVER_VERSION, text(root, Fields.DRIVER_VERSION));
        system.put(Fields.CUDA_VERSION, text(root, Fields.CUDA_VERSION));
        system.put(Fields.ATTACHED_GPUS, number(root, Fields.ATTACHED_GPUS));
        List<NodeValues.GpuValues> gpus = new ArrayList<>();
        for (Element gpu : children(root, "gpu")) {
            Map<String, Val> f = new LinkedHashMap<>();
            TEXT_PATHS.forEach(path -> f.put(path, text(gpu, path)));
            NUMBER_PATHS.forEach(path -> f.put(path, number(gpu, path)));
            power(gpu, f);
            String busId = gpu.getAttribute("id");
            if (busId.isBlank() && f.get(Fields.PCI_BUS_ID) instanceof Val.Text(String id)) {
                busId = id;
            }
            String uuid = f.get(Fields.UUID) instanceof Val.Text(String u) ? u : "(no uuid)";
            String cap = computeCaps.get(Fields.normaliseBusId(busId));
            f.put(Fields.COMPUTE_CAP, cap == null ? Val.absent() : value(cap, false));
            gpus.add(new NodeValues.GpuValues(gpus.size(), uuid, busId, f));
        }
        return new NodeValues(source, system, gpus);
    }

    /**
     * Parses {@code nvidia-smi --query-gpu=pci.bus_id,compute_cap --format=csv,noheader}: one
     * {@code 00000000:1B:00.0, 9.0} line per GPU, keyed by the normalised bus id.
     */
    public static Map<String, String> parseComputeCaps(String csv) {
        Map<String, String> caps = new LinkedHashMap<>();
        for (String line : csv.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            String[] parts = line.split(",");
            if (parts.length != 2) {
                throw new IllegalArgumentException("nvidia-smi --query-gpu line was '" + line
                        + "' but it must be '<pci.bus_id>, <compute_cap>'");
            }
            caps.put(Fields.normaliseBusId(parts[0]), parts[1].strip());
        }
        return caps;
    }

    private static void power(Element gpu, Map<String, Val> f) {
        Val found = Val.absent();
        for (String path : POWER_PATHS) {
            Val v = number(gpu, path);
            if (v instanceof Val.Num) {
                f.put(Fields.POWER_DRAW, v);
                f.put(POWER_SOURCE, Val.text(path));
                return;
            }
            if (v instanceof Val.NotAvailable && found instanceof Val.Absent) {
                found = v;
            }
        }
        f.put(Fields.POWER_DRAW, found);
    }

    private static Val text(Element at, String path) {
        return lookup(at, path, false);
    }

    private static Val number(Element at, String path) {
        return lookup(at, path, true);
    }

    /**
     * The value at {@code path}; a section nvidia-smi wrote as one {@code N/A} (e.g.
     * {@code <remapped_rows>N/A</remapped_rows>} on GPUs without row remapping) makes its fields not available.
     */
    private static Val lookup(Element at, String path, boolean numeric) {
        Element current = at;
        for (String name : path.split("\\.")) {
            List<Element> found = children(current, name);
            if (found.isEmpty()) {
                if (current != at && children(current).isEmpty() && value(current.getTextContent(), false) instanceof Val.NotAvailable na) {
                    return na;
                }
                return Val.absent();
            }
            current = found.getFirst();
        }
        return value(current.getTextContent(), numeric);
    }

    /** A value as nvidia-smi printed it: N/A forms, a number with its unit stripped, or text. */
    static Val value(String raw, boolean numeric) {
        String text = raw.strip();
        if (NOT_AVAILABLE.contains(text.toLowerCase(Locale.ROOT))) {
            return Val.notAvailable(text.isEmpty() ? "empty" : text);
        }
        if (numeric) {
            Matcher m = NUMBER.matcher(text);
            if (m.matches()) {
                return Val.num(Double.parseDouble(m.group(1)));
            }
            return Val.notAvailable("not a number: " + text);
        }
        return Val.text(text);
    }

    private static List<Element> children(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                out.add(e);
            }
        }
        return out;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static Document document(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(false);
            factory.setValidating(false);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            // nvidia-smi's DOCTYPE names nvsmi_device_vNN.dtd: accept the declaration, never fetch the file
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(new org.xml.sax.ErrorHandler() {
                @Override
                public void warning(org.xml.sax.SAXParseException e) {
                }

                @Override
                public void error(org.xml.sax.SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(org.xml.sax.SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            builder.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
            return builder.parse(new InputSource(new StringReader(xml)));
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("this JDK's XML parser lacks a feature gpu-check needs: " + e.getMessage(), e);
        } catch (SAXException e) {
            throw new IllegalArgumentException("nvidia-smi's XML does not parse: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("nvidia-smi's XML could not be read: " + e.getMessage(), e);
        }
    }
}
