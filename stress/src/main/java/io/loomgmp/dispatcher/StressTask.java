package io.loomgmp.dispatcher;

/**
 * A numbered task for the jcstress tests, and the bookkeeping that checks every task comes out of
 * the queues exactly once.
 */
record StressTask(int id) implements Runnable {
    @Override
    public void run() {
        // never run: the tests only move tasks between queues
    }

    /**
     * What a test reports of a global queue's element: a task's id, a batch's first id minus 100
     * (so that -100 is a batch starting with task 0), or -1 for none.
     */
    static int idOf(Object element) {
        if (element instanceof Object[] batch) {
            return ((StressTask) batch[0]).id() - 100;
        }
        return element == null ? -1 : ((StressTask) element).id();
    }

    static StressTask[] numbered(int count) {
        StressTask[] tasks = new StressTask[count];
        for (int i = 0; i < count; i++) {
            tasks[i] = new StressTask(i);
        }
        return tasks;
    }

    /** Counts how often each task id was seen, so a test can tell lost from duplicated. */
    static final class Tally {
        private final int[] seen;

        Tally(int tasks) {
            seen = new int[tasks];
        }

        void add(Runnable task) {
            if (task != null) {
                seen[((StressTask) task).id()]++;
            }
        }

        void addAll(Object[] tasks) {
            if (tasks != null) {
                for (Object task : tasks) {
                    add((Runnable) task);
                }
            }
        }

        /** A global queue's element: a task, a batch of them ({@code Object[]}), or null. */
        void addElement(Object element) {
            if (element instanceof Object[] batch) {
                addAll(batch);
            } else {
                add((Runnable) element);
            }
        }

        /** Drains {@code global}, both lanes and the reserve; returns how many tasks it held. */
        int drain(GlobalQueue global) {
            int tasks = 0;
            for (Object element; (element = global.poll()) != null; ) {
                addElement(element);
                tasks += element instanceof Object[] batch ? batch.length : 1;
            }
            return tasks;
        }

        /** Owner-side drain of everything left in {@code queue}, runnext included. */
        void drain(RunQueue queue) {
            add(queue.pollNext());
            for (Runnable task; (task = queue.poll()) != null; ) {
                add(task);
            }
        }

        /** 0 when every task was seen exactly once; else 1 for lost tasks + 2 for duplicated ones. */
        int violations() {
            int lost = 0;
            int duplicated = 0;
            for (int count : seen) {
                if (count == 0) {
                    lost = 1;
                } else if (count > 1) {
                    duplicated = 2;
                }
            }
            return lost + duplicated;
        }
    }
}
