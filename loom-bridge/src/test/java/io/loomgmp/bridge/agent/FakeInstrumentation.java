package io.loomgmp.bridge.agent;

import java.lang.instrument.ClassDefinition;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;

/**
 * An Instrumentation that keeps its transformers in a list, and whose retransformation of a class
 * hands {@link #classBytes} (a JDK class of the test's own shape) to the retransforming
 * transformers in turn, as the JVM does, keeping what they return in {@link #retransformed}; or
 * throws {@link #refusal} after that, as a JVM that does not take the bytes; or calls no
 * transformer when {@link #classBytes} is null. What the agent's start-up does not use throws.
 */
class FakeInstrumentation implements Instrumentation {
    /** Each registered transformer, and whether it can retransform. */
    final List<Map.Entry<ClassFileTransformer, Boolean>> transformers = new ArrayList<>();
    final List<ClassFileTransformer> removed = new ArrayList<>();
    byte[] classBytes;
    RuntimeException refusal;
    byte[] retransformed;
    int retransformations;

    @Override
    public void addTransformer(ClassFileTransformer transformer, boolean canRetransform) {
        transformers.add(Map.entry(transformer, canRetransform));
    }

    @Override
    public void addTransformer(ClassFileTransformer transformer) {
        addTransformer(transformer, false);
    }

    @Override
    public boolean removeTransformer(ClassFileTransformer transformer) {
        removed.add(transformer);
        return transformers.removeIf(entry -> entry.getKey() == transformer);
    }

    @Override
    public boolean isRetransformClassesSupported() {
        return true;
    }

    @Override
    public void retransformClasses(Class<?>... classes) throws UnmodifiableClassException {
        retransformations++;
        for (Class<?> type : classes) {
            if (classBytes == null) {
                continue;
            }
            byte[] bytes = classBytes;
            for (Map.Entry<ClassFileTransformer, Boolean> entry : transformers) {
                if (!entry.getValue()) {
                    continue;
                }
                try {
                    byte[] out = entry.getKey().transform(type.getModule(), type.getClassLoader(),
                            type.getName().replace('.', '/'), type, type.getProtectionDomain(), bytes);
                    bytes = out != null ? out : bytes;
                } catch (IllegalClassFormatException e) {
                    // the JVM ignores a transformer that throws
                }
            }
            if (refusal != null) {
                throw refusal;
            }
            retransformed = bytes;
        }
    }

    @Override
    public boolean isRedefineClassesSupported() {
        return false;
    }

    @Override
    public void redefineClasses(ClassDefinition... definitions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isModifiableClass(Class<?> type) {
        return true;
    }

    @Override
    public Class<?>[] getAllLoadedClasses() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Class<?>[] getInitiatedClasses(ClassLoader loader) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long getObjectSize(Object object) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void appendToBootstrapClassLoaderSearch(JarFile jar) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void appendToSystemClassLoaderSearch(JarFile jar) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isNativeMethodPrefixSupported() {
        return false;
    }

    @Override
    public void setNativeMethodPrefix(ClassFileTransformer transformer, String prefix) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void redefineModule(Module module, Set<Module> extraReads, Map<String, Set<Module>> extraExports,
                               Map<String, Set<Module>> extraOpens, Set<Class<?>> extraUses,
                               Map<Class<?>, List<Class<?>>> extraProvides) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isModifiableModule(Module module) {
        return false;
    }
}
