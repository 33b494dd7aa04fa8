package io.loomgmp.bridge.classfile;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ConstantDescs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads the guarded polls back out of a class file, by offsets alone (not the writer's own
 * bookkeeping): {@code getstatic flag; ifeq over; invokestatic poll; [nop...] over:}.
 */
public final class GuardedPolls {
    /**
     * One method: its back-edges, the distinct targets of those (loop headers), the back-edges
     * whose target is the first instruction of a guarded poll, the guarded polls, every call of
     * the poll (guarded or not), every read of the flag, and the guards with the writer's three
     * nops before {@code over}.
     */
    public record Shape(int backEdges, int headers, int guardedBackEdges, int guards, int calls, int flagReads,
                        int padded) {
        /** What a method with {@code backEdges} closing {@code headers} loops must look like once polled. */
        public static Shape polled(int backEdges, int headers, boolean padded) {
            return new Shape(backEdges, headers, backEdges, headers, headers, headers, padded ? headers : 0);
        }
    }

    private GuardedPolls() {
    }

    /** Per method name (with its descriptor if {@code withDescriptor}). */
    public static Map<String, Shape> byMethod(byte[] classBytes, String pollOwner, String pollName, String flagOwner,
                                              String flagName, boolean withDescriptor) {
        Map<String, Shape> result = new HashMap<>();
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            if (method.code().isEmpty()) {
                continue;
            }
            CodeAttribute code = (CodeAttribute) method.code().get();
            List<Instruction> instructions = new ArrayList<>();
            List<Integer> bcis = new ArrayList<>();
            int offset = 0;
            for (CodeElement element : code) {
                if (element instanceof Instruction instruction) {
                    instructions.add(instruction);
                    bcis.add(offset);
                    offset += instruction.sizeInBytes();
                }
            }
            TreeSet<Integer> guardStarts = new TreeSet<>();
            int calls = 0;
            int flagReads = 0;
            int padded = 0;
            for (int i = 0; i < instructions.size(); i++) {
                Instruction instruction = instructions.get(i);
                calls += isCall(instruction, pollOwner, pollName) ? 1 : 0;
                boolean flagRead = instruction instanceof FieldInstruction field && field.opcode() == Opcode.GETSTATIC
                        && field.owner().asInternalName().equals(flagOwner) && field.name().equalsString(flagName)
                        && field.typeSymbol().equals(ConstantDescs.CD_int);
                flagReads += flagRead ? 1 : 0;
                // getstatic; ifeq over; invokestatic; [nops] over:, or as the ClassFile API widens
                // it: getstatic; ifne call; goto_w over; call: invokestatic; over:
                boolean wide = flagRead && i + 3 < instructions.size()
                        && instructions.get(i + 1) instanceof BranchInstruction ifne && ifne.opcode() == Opcode.IFNE
                        && code.labelToBci(ifne.target()) == bcis.get(i + 3)
                        && instructions.get(i + 2) instanceof BranchInstruction jump && jump.opcode() == Opcode.GOTO_W
                        && isCall(instructions.get(i + 3), pollOwner, pollName);
                if (wide || flagRead && i + 2 < instructions.size()
                        && instructions.get(i + 1) instanceof BranchInstruction skip && skip.opcode() == Opcode.IFEQ
                        && isCall(instructions.get(i + 2), pollOwner, pollName)) {
                    int over = code.labelToBci(((BranchInstruction) instructions.get(wide ? i + 2 : i + 1)).target());
                    int j = wide ? i + 4 : i + 3;
                    while (j < instructions.size() && bcis.get(j) < over && instructions.get(j).opcode() == Opcode.NOP) {
                        j++;
                    }
                    if (j < instructions.size() && bcis.get(j) == over) { // over: right after the call and any nops
                        guardStarts.add(bcis.get(i));
                        padded += !wide && j - (i + 3) == 3 ? 1 : 0;
                    }
                }
            }
            int backEdges = 0;
            int guarded = 0;
            TreeSet<Integer> headers = new TreeSet<>();
            for (int i = 0; i < instructions.size(); i++) {
                if (instructions.get(i) instanceof BranchInstruction branch && code.labelToBci(branch.target()) <= bcis.get(i)) {
                    backEdges++;
                    int target = code.labelToBci(branch.target());
                    headers.add(target);
                    guarded += guardStarts.contains(target) ? 1 : 0;
                }
            }
            String name = method.methodName().stringValue() + (withDescriptor ? method.methodType().stringValue() : "");
            result.put(name, new Shape(backEdges, headers.size(), guarded, guardStarts.size(), calls, flagReads, padded));
        }
        return result;
    }

    private static boolean isCall(Instruction instruction, String owner, String name) {
        return instruction instanceof InvokeInstruction invoke
                && invoke.opcode() == Opcode.INVOKESTATIC
                && invoke.owner().asInternalName().equals(owner)
                && invoke.name().equalsString(name)
                && invoke.typeSymbol().equals(ConstantDescs.MTD_void);
    }
}
