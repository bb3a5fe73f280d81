package dev.distlock.spring;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

import dev.distlock.LockService;

/**
 * Finds calls from a class to its own {@link DistributedLock} methods on {@code this}: they bypass the Spring proxy, so
 * they run without the lock. Reads the bytecode of the class and its superclasses with Spring's ASM and looks for
 * {@code invokevirtual} instructions whose owner is the class itself; a call on another instance of the same class is
 * reported too, which is why the warning says "probably". Calls to {@code super} and a method's recursive calls to
 * itself are not reported: they run inside the locked call already.
 */
final class SelfInvocations {

    private static final Log logger = LogFactory.getLog(SelfInvocations.class);

    private SelfInvocations() {
    }

    /** Logs one WARN listing the self-invocations of the class's locked methods, if any. */
    static void warnIfAny(Class<?> userClass, Collection<Method> lockedMethods) {
        Set<String> calls = find(userClass, lockedMethods);
        if (!calls.isEmpty() && logger.isWarnEnabled()) {
            logger.warn("@DistributedLock is probably bypassed by self-invocation in " + userClass.getName() + ": "
                    + String.join(", ", calls) + ". A call on 'this' does not go through the Spring proxy and runs "
                    + "without the lock; call the method through the bean (another bean, or an injected reference to "
                    + "this one) or use LockService directly.");
        }
    }

    /** Descriptions such as {@code "reserveAll(List) calls reserve(String)"}. */
    static Set<String> find(Class<?> userClass, Collection<Method> lockedMethods) {
        Set<String> lockedSignatures = new HashSet<>();
        for (Method method : lockedMethods) {
            lockedSignatures.add(method.getName() + Type.getMethodDescriptor(method));
        }
        Set<String> owners = new HashSet<>();
        for (Class<?> type = userClass; type != null && type != Object.class; type = type.getSuperclass()) {
            owners.add(Type.getInternalName(type));
        }
        Set<String> calls = new LinkedHashSet<>();
        for (Class<?> type = userClass; type != null && type != Object.class; type = type.getSuperclass()) {
            scan(type, owners, lockedSignatures, calls);
        }
        return calls;
    }

    private static void scan(Class<?> type, Set<String> owners, Set<String> lockedSignatures, Set<String> calls) {
        String resource = ClassUtils.convertClassNameToResourcePath(type.getName()) + ClassUtils.CLASS_FILE_SUFFIX;
        ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader()
                : ClassUtils.getDefaultClassLoader();
        if (loader == null) {
            return;
        }
        try (InputStream bytes = loader.getResourceAsStream(resource)) {
            if (bytes == null) {
                return;
            }
            new ClassReader(bytes).accept(new CallFinder(owners, lockedSignatures, calls),
                    ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        }
        catch (IOException | RuntimeException ex) {
            // A class we cannot read is only a missed warning, never a failure.
            logger.debug("Could not scan " + type.getName() + " for self-invocations", ex);
        }
    }

    private static String readable(String name, String descriptor) {
        StringBuilder text = new StringBuilder(name).append('(');
        Type[] arguments = Type.getArgumentTypes(descriptor);
        for (int i = 0; i < arguments.length; i++) {
            String className = arguments[i].getClassName();
            text.append(i > 0 ? ", " : "").append(className.substring(className.lastIndexOf('.') + 1));
        }
        return text.append(')').toString();
    }

    private static final class CallFinder extends ClassVisitor {

        private final Set<String> owners;

        private final Set<String> lockedSignatures;

        private final Set<String> calls;

        CallFinder(Set<String> owners, Set<String> lockedSignatures, Set<String> calls) {
            super(SpringAsmInfo.ASM_VERSION);
            this.owners = owners;
            this.lockedSignatures = lockedSignatures;
            this.calls = calls;
        }

        @Override
        public MethodVisitor visitMethod(int access, String callerName, String callerDescriptor, String signature,
                String[] exceptions) {
            String caller = callerName + callerDescriptor;
            return new MethodVisitor(SpringAsmInfo.ASM_VERSION) {

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
                        boolean isInterface) {
                    String callee = name + descriptor;
                    if (opcode == Opcodes.INVOKEVIRTUAL && CallFinder.this.owners.contains(owner)
                            && CallFinder.this.lockedSignatures.contains(callee) && !callee.equals(caller)) {
                        CallFinder.this.calls.add(readable(callerName, callerDescriptor) + " calls "
                                + readable(name, descriptor));
                    }
                }
            };
        }
    }
}
