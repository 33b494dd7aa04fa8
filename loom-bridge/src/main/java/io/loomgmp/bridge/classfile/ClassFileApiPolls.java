package io.loomgmp.bridge.classfile;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.ObjectVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.SimpleVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;
import java.lang.classfile.attribute.StackMapTableAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link PollWriter}'s second path: the same guarded polls at the same places, written with the
 * ClassFile API, for the shapes the writer does not edit as bytes (a type annotation on code, a
 * branch that would outgrow 16 bits). Only the methods to poll are inflated; the others are copied
 * as they are. Rare, and kept off the common path: the ClassFile API's generality costs a
 * start-up mostly in the JIT compiling it.
 *
 * <p><b>Where.</b> A back-edge is a branch whose target label is bound earlier in the method's
 * code. The ClassFile API streams a method's code in bytecode order with a {@link LabelTarget}
 * where each label is bound, so "bound earlier" is "seen earlier in the stream" ({@link BackEdges}).
 *
 * <p><b>Stack maps.</b> Inserting code moves offsets, but the guard leaves the stack and the
 * locals as it found them, so every frame of a changed method's StackMapTable still holds, only at
 * a new offset, and the frames added (at a header's {@code over}, and at each call, which becomes
 * a branch target where the ClassFile API widens the guard's branch) are copies of the header's or
 * the {@code goto} target's: the original frames are written back against the ClassFile API's labels, which follow the code
 * as it moves, with the copies added, rather than regenerated. Regenerating them would need the
 * class hierarchy at every join point that merges two reference types, read from class files
 * through the defining loader's resources: most of the transformer's cost, and a failure for any
 * class whose supertypes cannot be read that way. Class files before version 50 have no stack
 * maps and get none. The maximum stack depth is recomputed ({@code getstatic} pushes an int).
 */
final class ClassFileApiPolls {
    private ClassFileApiPolls() {
    }

    /**
     * Guarded polls in the methods named in {@code polled} (name and descriptor), on the ClassFile
     * API: {@code getstatic flagOwner.flagName:I; ifeq ...; invokestatic owner.name()V} (internal
     * names), where {@link PollWriter} puts them.
     */
    static byte[] insert(byte[] classBytes, Set<String> polled, String owner, String name, String flagOwner,
                         String flagName) {
        ClassDesc poll = ClassDesc.ofInternalName(owner);
        ClassDesc flag = ClassDesc.ofInternalName(flagOwner);
        ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.DROP_STACK_MAPS); // the originals are kept instead
        ClassModel model = classFile.parse(classBytes);
        ClassDesc thisClass = model.thisClass().asSymbol();
        return classFile.transformClass(model, ClassTransform.transformingMethods(
                method -> polled.contains(method.methodName().stringValue() + method.methodType().stringValue()),
                (method, element) -> {
                    if (element instanceof CodeModel code) {
                        Optional<StackMapTableAttribute> frames = code.findAttribute(Attributes.stackMapTable());
                        List<Set<Label>> plan = plan(code);
                        List<VerificationTypeInfo> initial = initialLocals(thisClass, code.parent().orElseThrow());
                        // Stateful: the builder may run the transform again (to widen a branch that outgrew 16 bits).
                        method.transformCode(code, CodeTransform.ofStateful(
                                () -> new PollLoops(plan.get(0), plan.get(1), frames, initial, poll, name, flag, flagName)));
                    } else {
                        method.with(element);
                    }
                }));
    }

    /**
     * Where the polls of {@code code} go, as in {@link PollWriter}: {@code [0]} the loop headers
     * (the targets of its back-edges other than a {@code goto}), {@code [1]} the targets of the
     * {@code goto} back-edges that are replaced by a poll (those to any other target).
     */
    private static List<Set<Label>> plan(CodeModel code) {
        BackEdges backEdges = new BackEdges();
        Set<Label> headers = new HashSet<>();
        List<Label> gotoTargets = new ArrayList<>();
        for (CodeElement element : code) {
            if (backEdges.isBackEdge(element)) {
                BranchInstruction branch = (BranchInstruction) element;
                if (branch.opcode() == Opcode.GOTO) {
                    gotoTargets.add(branch.target());
                } else {
                    headers.add(branch.target());
                }
            }
        }
        Set<Label> tailTargets = new HashSet<>(gotoTargets);
        tailTargets.removeAll(headers);
        return List.of(headers, tailTargets);
    }

    /** The locals of a method's implicit first frame: {@code this} (uninitialised in a constructor), then its arguments. */
    private static List<VerificationTypeInfo> initialLocals(ClassDesc thisClass, MethodModel method) {
        List<VerificationTypeInfo> locals = new ArrayList<>();
        if (!method.flags().has(AccessFlag.STATIC)) {
            locals.add(method.methodName().equalsString(ConstantDescs.INIT_NAME)
                    ? SimpleVerificationTypeInfo.UNINITIALIZED_THIS : ObjectVerificationTypeInfo.of(thisClass));
        }
        for (ClassDesc parameter : method.methodTypeSymbol().parameterList()) {
            locals.add(switch (parameter.descriptorString().charAt(0)) {
                case 'Z', 'B', 'C', 'S', 'I' -> SimpleVerificationTypeInfo.INTEGER;
                case 'F' -> SimpleVerificationTypeInfo.FLOAT;
                case 'J' -> SimpleVerificationTypeInfo.LONG;
                case 'D' -> SimpleVerificationTypeInfo.DOUBLE;
                default -> ObjectVerificationTypeInfo.of(parameter);
            });
        }
        return locals;
    }

    /**
     * Recognises back-edges in one method's code, fed its elements in stream (bytecode) order.
     * Invariant: {@code bound} holds exactly the labels bound before the current element.
     */
    private static final class BackEdges {
        private final Set<Label> bound = new HashSet<>();

        /** Feeds the next element; true if it is a branch to a label bound before it. */
        boolean isBackEdge(CodeElement element) {
            if (element instanceof LabelTarget target) {
                bound.add(target.label());
                return false;
            }
            return element instanceof BranchInstruction branch && bound.contains(branch.target());
        }
    }

    /**
     * The code transform of one method: one instance per method, as its state is per method. A
     * header's guard goes in front of the first instruction after the header's label, so that the
     * label (and whatever else points at that offset: its frame, its line, a try block's start)
     * now leads through it; a {@code goto} back-edge to any other target becomes
     * {@code getstatic; ifeq head; invokestatic; goto head}. The method's original stack map
     * frames are written back at the end with a copy of the header's frame at each new label
     * (see "Stack maps" in the class comment), in the order the labels were bound.
     */
    private static final class PollLoops implements CodeTransform {
        private final Set<Label> headers;
        private final Set<Label> tailTargets;
        private final Optional<StackMapTableAttribute> frames;
        private final List<VerificationTypeInfo> initialLocals;
        /** Per header or goto target: the new labels whose frame is a copy of its. */
        private final Map<Label, List<Label>> copies = new HashMap<>();
        /** Every label bound, in order: the frames' order. */
        private final Map<Label, Integer> order = new HashMap<>();
        private Label pending; // a header bound, its poll not yet written
        private final List<Label> atStart = new ArrayList<>(); // new labels with the implicit frame's copy
        private boolean started; // an instruction was written
        private final ClassDesc owner;
        private final String name;
        private final ClassDesc flagOwner;
        private final String flagName;

        PollLoops(Set<Label> headers, Set<Label> tailTargets, Optional<StackMapTableAttribute> frames,
                  List<VerificationTypeInfo> initialLocals, ClassDesc owner, String name, ClassDesc flagOwner,
                  String flagName) {
            this.headers = headers;
            this.tailTargets = tailTargets;
            this.frames = frames;
            this.initialLocals = initialLocals;
            this.owner = owner;
            this.name = name;
            this.flagOwner = flagOwner;
            this.flagName = flagName;
        }

        private void bind(CodeBuilder code, Label label, Label copyOf) {
            code.labelBinding(label);
            order.put(label, order.size());
            copies.computeIfAbsent(copyOf, k -> new ArrayList<>()).add(label);
        }

        @Override
        public void accept(CodeBuilder code, CodeElement element) {
            if (element instanceof LabelTarget target) {
                order.put(target.label(), order.size());
                if (headers.contains(target.label())) {
                    pending = target.label();
                }
            } else if (element instanceof Instruction && pending != null) {
                // The call gets a frame too, though no branch of the guard's targets it: where this
                // builder must widen a branch that outgrew 16 bits it widens every branch, the
                // guard's ifeq to "ifne call; goto_w over; call:", and then it is one.
                Label call = code.newLabel();
                Label over = code.newLabel();
                code.getstatic(flagOwner, flagName, ConstantDescs.CD_int).ifeq(over);
                bind(code, call, pending);
                code.invokestatic(owner, name, ConstantDescs.MTD_void);
                bind(code, over, pending);
                if (!started) {
                    atStart.add(call);
                    atStart.add(over);
                }
                pending = null;
            }
            if (element instanceof Instruction) {
                started = true;
            }
            if (element instanceof BranchInstruction branch && branch.opcode() == Opcode.GOTO
                    && tailTargets.contains(branch.target()) && order.containsKey(branch.target())) {
                // A goto back-edge (its target bound before it): the poll in its place, the fast
                // path straight to the target. The call's frame is the target's (see above).
                Label call = code.newLabel();
                code.getstatic(flagOwner, flagName, ConstantDescs.CD_int).ifeq(branch.target());
                bind(code, call, branch.target());
                code.invokestatic(owner, name, ConstantDescs.MTD_void);
            }
            code.with(element);
        }

        @Override
        public void atEnd(CodeBuilder code) {
            if (frames.isEmpty()) {
                return; // before version 50: the verifier infers the types
            }
            List<StackMapFrameInfo> entries = new ArrayList<>();
            for (Label label : atStart) { // a header at 0 has the implicit frame, unless one is given there
                if (frames.get().entries().stream().noneMatch(frame -> order.get(frame.target()) < order.get(label))) {
                    entries.add(StackMapFrameInfo.of(label, initialLocals, List.of()));
                }
            }
            for (StackMapFrameInfo frame : frames.get().entries()) {
                entries.add(frame);
                for (Label label : copies.getOrDefault(frame.target(), List.of())) {
                    entries.add(StackMapFrameInfo.of(label, frame.locals(), frame.stack()));
                }
            }
            entries.sort(java.util.Comparator.comparingInt(frame -> order.getOrDefault(frame.target(), -1)));
            code.with(StackMapTableAttribute.of(entries));
        }
    }
}
