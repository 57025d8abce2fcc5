package dev.kgpu.validator.core;

/**
 * Validates one component. Implementations return the {@link Evidence} of what they saw when the component
 * works and throw {@link ComponentFailure} naming the failing layer when it does not.
 */
public interface ComponentValidator {

    Component component();

    /** Checks the component once, waiting within its own bounds where it must. */
    Evidence validate() throws InterruptedException;
}
