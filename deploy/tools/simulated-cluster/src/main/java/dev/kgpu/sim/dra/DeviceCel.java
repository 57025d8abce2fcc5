package dev.kgpu.sim.dra;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CEL environment in which kube-scheduler evaluates DRA device selectors (DeviceClass {@code spec.selectors},
 * a request's {@code selectors}), with Google's CEL for Java: the variable {@code device} ({@code driver},
 * {@code attributes}, {@code capacity}, {@code allowMultipleAllocations}; see {@link SliceDevice#celValue()}), the
 * standard macros ({@code has}, {@code all}, {@code exists}, ...), optionals ({@code .?name}, {@code orValue}),
 * {@code cel.bind}, the strings and sets extensions, and Kubernetes' quantity and semver libraries:
 *
 * <ul>
 *   <li>{@code quantity(string)}, {@code isQuantity(string)}; on a quantity {@code sign()}, {@code compareTo(q)},
 *       {@code isGreaterThan(q)}, {@code isLessThan(q)}, {@code isInteger()}, {@code asInteger()},
 *       {@code asApproximateFloat()}, {@code add(q|int)}, {@code sub(q|int)};</li>
 *   <li>{@code semver(string)}, {@code isSemver(string)}; on a version {@code major()}, {@code minor()},
 *       {@code patch()}, {@code compareTo(v)}, {@code isGreaterThan(v)}, {@code isLessThan(v)}.</li>
 * </ul>
 *
 * An expression must compile and evaluate to a bool; one that reads an attribute the device lacks fails with CEL's
 * error, which fails the allocation as it does in Kubernetes (guard with {@code has()} or {@code .?}). An unknown
 * attribute domain is an empty map. Not modelled: the runtime cost limit (1,000,000), the other Kubernetes libraries
 * (URLs, IPs, CIDRs, format, lists), list-typed attributes.
 *
 * <p>Thread-safe: compiled selectors are cached and may be evaluated concurrently.
 */
public final class DeviceCel {

    static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
    static final OpaqueType SEMVER = OpaqueType.create("kubernetes.Semver");
    /** Kubernetes' limit on one selector expression ({@code SelectorExpressionMaxLength}). */
    static final int MAX_EXPRESSION_LENGTH = 10 * 1024;

    private static final DeviceCel INSTANCE = new DeviceCel();

    private final Cel cel;
    private final Map<String, Selector> compiled = new ConcurrentHashMap<>();

    private DeviceCel() {
        var optional = CelExtensions.optional();
        var strings = CelExtensions.strings();
        var sets = CelExtensions.sets(CelOptions.DEFAULT);
        this.cel = CelFactory.standardCelBuilder()
                .setOptions(CelOptions.current().enableOptionalSyntax(true).comprehensionMaxIterations(1_000_000).build())
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addCompilerLibraries(optional, strings, sets, CelExtensions.bindings())
                .addRuntimeLibraries(optional, strings, sets)
                .addVar("device", MapType.create(SimpleType.STRING, SimpleType.DYN))
                .addFunctionDeclarations(declarations())
                .addFunctionBindings(bindings())
                .build();
    }

    /** The one environment. */
    public static DeviceCel environment() {
        return INSTANCE;
    }

    /**
     * A compiled selector.
     *
     * @throws SelectorException with CEL's compile error, or when it does not evaluate to a bool
     */
    public Selector compile(String expression) {
        Selector selector = compiled.get(expression);
        if (selector != null) {
            return selector;
        }
        if (expression.length() > MAX_EXPRESSION_LENGTH) {
            throw new SelectorException("the expression is " + expression.length() + " characters long, more than "
                    + MAX_EXPRESSION_LENGTH);
        }
        CelAbstractSyntaxTree ast;
        try {
            ast = cel.compile(expression).getAst();
        } catch (CelValidationException e) {
            throw new SelectorException("compilation failed: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        if (!ast.getResultType().equals(SimpleType.BOOL) && !ast.getResultType().equals(SimpleType.DYN)) {
            throw new SelectorException("must evaluate to bool, not " + ast.getResultType().name());
        }
        CelRuntime.Program program;
        try {
            program = cel.createProgram(ast);
        } catch (CelEvaluationException e) {
            throw new SelectorException("compilation failed: " + e.getMessage(), e);
        }
        selector = new Selector(expression, program);
        compiled.put(expression, selector);
        return selector;
    }

    /** One compiled expression. */
    public static final class Selector {
        private final String expression;
        private final CelRuntime.Program program;

        private Selector(String expression, CelRuntime.Program program) {
            this.expression = expression;
            this.program = program;
        }

        public String expression() {
            return expression;
        }

        /**
         * Whether {@code device} matches.
         *
         * @throws SelectorException with CEL's runtime error (an attribute the device lacks, a bad quantity), or
         *                           when the result is not a bool
         */
        public boolean matches(SliceDevice device) {
            Object result;
            try {
                result = program.eval(Map.of("device", device.celValue()));
            } catch (CelEvaluationException e) {
                throw new SelectorException("CEL runtime error: " + e.getMessage(), e);
            }
            if (result instanceof Boolean matches) {
                return matches;
            }
            throw new SelectorException("must evaluate to bool, not " + result.getClass().getSimpleName());
        }
    }

    /** A selector that does not compile or does not evaluate. */
    public static final class SelectorException extends RuntimeException {
        SelectorException(String message) {
            super(message);
        }

        SelectorException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static CelFunctionDecl[] declarations() {
        return new CelFunctionDecl[] {
            fn("quantity", CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, SimpleType.STRING)),
            fn("isQuantity", CelOverloadDecl.newGlobalOverload("is_quantity_string", SimpleType.BOOL, SimpleType.STRING)),
            fn("sign", CelOverloadDecl.newMemberOverload("quantity_sign", SimpleType.INT, QUANTITY)),
            fn("isInteger", CelOverloadDecl.newMemberOverload("quantity_is_integer", SimpleType.BOOL, QUANTITY)),
            fn("asInteger", CelOverloadDecl.newMemberOverload("quantity_get_integer", SimpleType.INT, QUANTITY)),
            fn("asApproximateFloat", CelOverloadDecl.newMemberOverload("quantity_get_float", SimpleType.DOUBLE, QUANTITY)),
            fn("add", CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
                    CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY, SimpleType.INT)),
            fn("sub", CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
                    CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY, SimpleType.INT)),
            fn("semver", CelOverloadDecl.newGlobalOverload("string_to_semver", SEMVER, SimpleType.STRING)),
            fn("isSemver", CelOverloadDecl.newGlobalOverload("is_semver_string", SimpleType.BOOL, SimpleType.STRING)),
            fn("major", CelOverloadDecl.newMemberOverload("semver_major", SimpleType.INT, SEMVER)),
            fn("minor", CelOverloadDecl.newMemberOverload("semver_minor", SimpleType.INT, SEMVER)),
            fn("patch", CelOverloadDecl.newMemberOverload("semver_patch", SimpleType.INT, SEMVER)),
            fn("compareTo", CelOverloadDecl.newMemberOverload("quantity_compare_to", SimpleType.INT, QUANTITY, QUANTITY),
                    CelOverloadDecl.newMemberOverload("semver_compare_to", SimpleType.INT, SEMVER, SEMVER)),
            fn("isGreaterThan", CelOverloadDecl.newMemberOverload("quantity_greater", SimpleType.BOOL, QUANTITY, QUANTITY),
                    CelOverloadDecl.newMemberOverload("semver_greater", SimpleType.BOOL, SEMVER, SEMVER)),
            fn("isLessThan", CelOverloadDecl.newMemberOverload("quantity_less", SimpleType.BOOL, QUANTITY, QUANTITY),
                    CelOverloadDecl.newMemberOverload("semver_less", SimpleType.BOOL, SEMVER, SEMVER)),
        };
    }

    private static CelFunctionDecl fn(String name, CelOverloadDecl... overloads) {
        return CelFunctionDecl.newFunctionDeclaration(name, overloads);
    }

    private static CelFunctionBinding[] bindings() {
        return new CelFunctionBinding[] {
            CelFunctionBinding.from("string_to_quantity", String.class, text -> {
                try {
                    return CelQuantity.parse(text);
                } catch (IllegalArgumentException e) {
                    throw new CelEvaluationException("quantity(): " + e.getMessage(), e);
                }
            }),
            CelFunctionBinding.from("is_quantity_string", String.class, CelQuantity::isValid),
            CelFunctionBinding.from("quantity_sign", CelQuantity.class, q -> (long) q.amount().signum()),
            CelFunctionBinding.from("quantity_is_integer", CelQuantity.class, CelQuantity::isInteger),
            CelFunctionBinding.from("quantity_get_integer", CelQuantity.class, q -> {
                try {
                    return q.amount().longValueExact();
                } catch (ArithmeticException e) {
                    throw new CelEvaluationException("asInteger(): " + q + " is not an integer or does not fit in 64 bits", e);
                }
            }),
            CelFunctionBinding.from("quantity_get_float", CelQuantity.class, q -> q.amount().doubleValue()),
            CelFunctionBinding.from("quantity_add", CelQuantity.class, CelQuantity.class, CelQuantity::add),
            CelFunctionBinding.from("quantity_add_int", CelQuantity.class, Long.class,
                    (q, n) -> q.add(new CelQuantity(BigDecimal.valueOf(n), Long.toString(n)))),
            CelFunctionBinding.from("quantity_sub", CelQuantity.class, CelQuantity.class, CelQuantity::subtract),
            CelFunctionBinding.from("quantity_sub_int", CelQuantity.class, Long.class,
                    (q, n) -> q.subtract(new CelQuantity(BigDecimal.valueOf(n), Long.toString(n)))),
            CelFunctionBinding.from("quantity_compare_to", CelQuantity.class, CelQuantity.class, (a, b) -> (long) Integer.signum(a.compareTo(b))),
            CelFunctionBinding.from("quantity_greater", CelQuantity.class, CelQuantity.class, (a, b) -> a.compareTo(b) > 0),
            CelFunctionBinding.from("quantity_less", CelQuantity.class, CelQuantity.class, (a, b) -> a.compareTo(b) < 0),
            CelFunctionBinding.from("string_to_semver", String.class, text -> {
                try {
                    return Semver.parse(text);
                } catch (IllegalArgumentException e) {
                    throw new CelEvaluationException("semver(): " + e.getMessage(), e);
                }
            }),
            CelFunctionBinding.from("is_semver_string", String.class, Semver::isValid),
            CelFunctionBinding.from("semver_major", Semver.class, Semver::major),
            CelFunctionBinding.from("semver_minor", Semver.class, Semver::minor),
            CelFunctionBinding.from("semver_patch", Semver.class, Semver::patch),
            CelFunctionBinding.from("semver_compare_to", Semver.class, Semver.class, (a, b) -> (long) Integer.signum(a.compareTo(b))),
            CelFunctionBinding.from("semver_greater", Semver.class, Semver.class, (a, b) -> a.compareTo(b) > 0),
            CelFunctionBinding.from("semver_less", Semver.class, Semver.class, (a, b) -> a.compareTo(b) < 0),
        };
    }
}
