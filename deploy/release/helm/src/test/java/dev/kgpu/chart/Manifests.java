package dev.kgpu.chart;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Kubernetes manifests read into fabric8's typed models, the schema check an API server does on create: every
 * document must be a kind the models know, every field must be one its schema has (fabric8 keeps unknown fields
 * in {@code additionalProperties}, which {@link #unknownFields} walks), every value must have the schema's type
 * (Jackson refuses a string where an integer goes) and every quantity must parse.
 */
final class Manifests {

    private Manifests() {
    }

    /** A manifest's objects, in order; fails on a document that is not valid YAML for its kind's model. */
    static List<HasMetadata> read(String yaml, String source) {
        List<HasMetadata> objects = new ArrayList<>();
        int index = 0;
        for (String document : yaml.split("(?m)^---\\s*$")) {
            index++;
            if (document.lines().allMatch(line -> line.isBlank() || line.stripLeading().startsWith("#"))) {
                continue;
            }
            Object parsed;
            try {
                parsed = Serialization.unmarshal(document, KubernetesResource.class);
            } catch (RuntimeException e) {
                throw new AssertionError(source + ", document " + index + " does not fit its kind's schema: " + e.getMessage()
                        + "\n" + document, e);
            }
            if (!(parsed instanceof HasMetadata object) || parsed instanceof GenericKubernetesResource) {
                throw new AssertionError(source + ", document " + index + " is of a kind without a model, so unchecked: "
                        + (parsed == null ? "nothing" : parsed.getClass().getSimpleName()) + "\n" + document);
            }
            objects.add(object);
        }
        return objects;
    }

    /** "{@code kind/name}" of an object, for messages. */
    static String id(HasMetadata object) {
        return object.getKind() + "/" + object.getMetadata().getName();
    }

    /** Every field the object's schema does not have, and every quantity that does not parse, as problems. */
    static List<String> schemaProblems(HasMetadata object) {
        List<String> problems = new ArrayList<>();
        walk(object, id(object), problems, new IdentityHashMap<>());
        return problems;
    }

    private static void walk(Object value, String path, List<String> problems, Map<Object, Boolean> seen) {
        if (value == null || seen.put(value, Boolean.TRUE) != null) {
            return;
        }
        if (value instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                walk(item, path + "[" + i++ + "]", problems, seen);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, item) -> walk(item, path + "[" + key + "]", problems, seen));
            return;
        }
        if (value instanceof Quantity quantity) {
            try {
                Quantity.getAmountInBytes(quantity);
            } catch (RuntimeException e) {
                problems.add(path + " was '" + quantity + "' but it is not a Kubernetes quantity");
            }
            return;
        }
        if (!value.getClass().getPackageName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : getters(value.getClass())) {
            Object field;
            try {
                field = getter.invoke(value);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new AssertionError("reading " + path + "." + getter.getName(), e);
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> unknown && !unknown.isEmpty()) {
                    problems.add(path + " has fields its schema does not: " + unknown.keySet());
                }
                continue;
            }
            walk(field, path + "." + property(getter), problems, seen);
        }
    }

    private static List<Method> getters(Class<?> type) {
        List<Method> getters = new ArrayList<>();
        for (Method method : type.getMethods()) {
            if (method.getParameterCount() == 0 && !Modifier.isStatic(method.getModifiers())
                    && method.getDeclaringClass() != Object.class
                    && (method.getName().startsWith("get") || method.getName().startsWith("is"))
                    && !method.getName().equals("getClass")) {
                getters.add(method);
            }
        }
        getters.sort(Comparator.comparing(Method::getName));
        return getters;
    }

    private static String property(Method getter) {
        String name = getter.getName().startsWith("is") ? getter.getName().substring(2) : getter.getName().substring(3);
        return name.isEmpty() ? name : name.substring(0, 1).toLowerCase(Locale.ROOT) + name.substring(1);
    }

    /**
     * Everything wrong with a set of objects installed together: a kind kgpu does not ship, a field or value its
     * schema does not allow, a rule of the API server's, a rule of kgpu's {@code hardening}.
     */
    static List<String> problems(List<HasMetadata> objects, Hardening hardening) {
        List<String> problems = new ArrayList<>();
        objects.stream().filter(o -> !KINDS.contains(o.getKind())).forEach(o -> problems.add(id(o) + ": a kind kgpu does not ship"));
        objects.forEach(object -> problems.addAll(schemaProblems(object)));
        problems.addAll(ApiServerRules.problems(objects));
        problems.addAll(hardening.problems(objects));
        return problems;
    }

    /** Kinds the chart may render; anything else would not be installed the way the tests expect. */
    static final Set<String> KINDS = Set.of("ServiceAccount", "ConfigMap", "ClusterRole", "ClusterRoleBinding", "Role",
            "RoleBinding", "DaemonSet", "Service", "ServiceMonitor", "Secret", "Namespace", "DeviceClass", "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding");
}
