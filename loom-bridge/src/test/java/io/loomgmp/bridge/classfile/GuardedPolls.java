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
 * bookkeeping): at a loop header {@code getstatic flag; ifeq over; invokestatic poll; [nop...]
 * over:}, and in place of a {@code goto} back-edge {@code getstatic flag; ifeq head;
 * invokestatic poll; [nop...] goto head}.
 */
public final class GuardedPolls {
    /**
     * One method: its guarded polls at a loop header, its polls in place of a {@code goto}
     * back-edge (tails), the back-edges neither part of a tail nor going to a header's poll
     * (unpolled), every call of the poll, every read of the flag, and the polls with the writer's
     * three nops.
     */
    public record Shape(int guards, int tails, int unpolled, int calls, int flagReads, int padded) {
        /** What a method with {@code guards} loops polled at their header and {@code tails} in place of a goto must look like. */
        public static Shape polled(int guards, int tails, boolean padded) {
            return new Shape(guards, tails, 0, guards + tails, guards + tails, padded ? guards + tails : 0);
        }

        /** A method with {@code backEdges} and no poll. */
        public static Shape unpolled(int backEdges) {
            return new Shape(0, 0, backEdges, 0, 0, 0);
        }
    }

    private GuardedPolls() {
    }

    /** A method's instructions in order, each with its code offset (bci) at the same index. */
    public record Listing(List<Instruction> instructions, List<Integer> offsets) {
    }

    public static Listing listing(CodeAttribute code) {
        List<Instruction> instructions = new ArrayList<>();
        List<Integer> offsets = new ArrayList<>();
        int offset = 0;
        for (CodeElement element : code) {
            if (element instanceof Instruction instruction) {
                instructions.add(instruction);
                offsets.add(offset);
                offset += instruction.sizeInBytes();
            }
        }
        return new Listing(instructions, offsets);
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
            GuardedPolls.Listing listing = GuardedPolls.listing(code);
            List<Instruction> instructions = listing.instructions();
            List<Integer> bcis = listing.offsets();
            TreeSet<Integer> guardStarts = new TreeSet<>();
            java.util.Set<Integer> inTails = new java.util.HashSet<>(); // the branches of tail polls, by index
            int calls = 0;
            int flagReads = 0;
            int padded = 0;
            int tails = 0;
            for (int i = 0; i < instructions.size(); i++) {
                Instruction instruction = instructions.get(i);
                calls += isCall(instruction, pollOwner, pollName) ? 1 : 0;
                boolean flagRead = instruction instanceof FieldInstruction field && field.opcode() == Opcode.GETSTATIC
                        && field.owner().asInternalName().equals(flagOwner) && field.name().equalsString(flagName)
                        && field.typeSymbol().equals(ConstantDescs.CD_int);
                flagReads += flagRead ? 1 : 0;
                if (!flagRead) {
                    continue;
                }
                // getstatic; ifeq X; invokestatic, or as the ClassFile API widens a branch:
                // getstatic; ifne call; goto_w X; call: invokestatic
                boolean wide = i + 3 < instructions.size()
                        && instructions.get(i + 1) instanceof BranchInstruction ifne && ifne.opcode() == Opcode.IFNE
                        && code.labelToBci(ifne.target()) == bcis.get(i + 3)
                        && instructions.get(i + 2) instanceof BranchInstruction jump && jump.opcode() == Opcode.GOTO_W
                        && isCall(instructions.get(i + 3), pollOwner, pollName);
                boolean narrow = i + 2 < instructions.size()
                        && instructions.get(i + 1) instanceof BranchInstruction skip && skip.opcode() == Opcode.IFEQ
                        && isCall(instructions.get(i + 2), pollOwner, pollName);
                if (!wide && !narrow) {
                    continue;
                }
                int skipIndex = wide ? i + 2 : i + 1;
                int target = code.labelToBci(((BranchInstruction) instructions.get(skipIndex)).target());
                boolean atHeader = target > bcis.get(i);
                int j = wide ? i + 4 : i + 3;
                int nops = 0; // the writer's padding: up to over at a header, at most 3 before the goto of a tail
                while (j < instructions.size() && instructions.get(j).opcode() == Opcode.NOP
                        && (atHeader ? bcis.get(j) < target : nops < 3)) {
                    j++;
                    nops++;
                }
                if (atHeader && j < instructions.size() && bcis.get(j) == target) { // over: right after the call
                    guardStarts.add(bcis.get(i));
                    padded += !wide && nops == 3 ? 1 : 0;
                } else if (!atHeader && j < instructions.size()
                        && instructions.get(j) instanceof BranchInstruction back
                        && (back.opcode() == Opcode.GOTO || back.opcode() == Opcode.GOTO_W)
                        && code.labelToBci(back.target()) == target) { // a goto back-edge's poll
                    tails++;
                    padded += !wide && nops == 3 ? 1 : 0;
                    inTails.add(skipIndex);
                    inTails.add(j);
                }
            }
            int unpolled = 0;
            for (int i = 0; i < instructions.size(); i++) {
                if (instructions.get(i) instanceof BranchInstruction branch && code.labelToBci(branch.target()) <= bcis.get(i)
                        && !inTails.contains(i) && !guardStarts.contains(code.labelToBci(branch.target()))) {
                    unpolled++;
                }
            }
            String name = method.methodName().stringValue() + (withDescriptor ? method.methodType().stringValue() : "");
            result.put(name, new Shape(guardStarts.size(), tails, unpolled, calls, flagReads, padded));
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
