<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <source>Wait for the running task to finish.</source>
        <extracomment>Groups the last scan showed: an empty list after it means all were handled. The options of the last scan (thresholds, cache), for measuring a new keeper.</extracomment>
        <translation>请等待当前任务完成。</translation>
    </message>
    <message>
        <source>Could not finish</source>
        <translation>未能完成</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Remembered decisions not applied</source>
        <translation>未能应用已记住的判断</translation>
    </message>
    <message>
        <source>The list still shows the previous results.</source>
        <translation>列表中仍是上次的结果。</translation>
    </message>
    <message>
        <source>Found %Ln group(s)</source>
        <translation>找到 %Ln 组</translation>
    </message>
    <message>
        <source>{files} files, {size} reclaimable) among %Ln file(s) in {seconds:.1f} s.</source>
        <translation>{files} 个文件，可释放 {size}），共检查 %Ln 个文件，用时 {seconds:.1f} 秒。</translation>
    </message>
    <message>
        <source>%Ln mark(s) kept from before the scan.</source>
        <translation>保留了扫描前的 %Ln 个标记。</translation>
    </message>
    <message>
        <source>%Ln mark(s) dropped: those files changed or are in no group now.</source>
        <translation>舍弃了 %Ln 个标记：这些文件已更改，或已不在任何组中。</translation>
    </message>
    <message>
        <source>No file marked.</source>
        <translation>没有标记文件。</translation>
    </message>
    <message>
        <source>%Ln file(s) marked ({size}).</source>
        <translation>已标记 %Ln 个文件（{size}）。</translation>
    </message>
    <message>
        <source>Changed only in the %Ln group(s) shown.</source>
        <translation>只更改了显示的 %Ln 个组。</translation>
    </message>
    <message>
        <source>No reference folder</source>
        <translation>没有参照文件夹</translation>
    </message>
    <message>
        <source>Tick “Reference” beside a folder first: its files are then always kept.</source>
        <translation>请先勾选文件夹旁的“参照”：其中的文件将始终保留。</translation>
    </message>
    <message>
        <source>“{rule}” cannot rank %Ln group(s) (documents or other files): they keep their file.</source>
        <translation>“{rule}”无法比较 %Ln 个组（文档或其他文件）：这些组保留原来的文件。</translation>
    </message>
    <message>
        <source>{name} is kept.</source>
        <translation>保留 {name}。</translation>
    </message>
    <message>
        <source>Nothing marked</source>
        <translation>没有标记任何文件</translation>
    </message>
    <message>
        <source>Tick the files to act on, or use the Mark menu to mark all but one per group.</source>
        <translation>请勾选要处理的文件，或用“标记”菜单标记每组中除一个以外的所有文件。</translation>
    </message>
    <message>
        <source>A group would lose every file</source>
        <translation>某组的文件将全部被处理</translation>
    </message>
    <message>
        <source>Every file of group(s) {numbers} is marked. Unmark the file to keep, or right-click it and choose “Keep this file”.</source>
        <translation>第 {numbers} 组的所有文件都已标记。请取消标记要保留的文件，或右键单击它并选择“保留此文件”。</translation>
    </message>
    <message>
        <source>Cannot do that</source>
        <translation>无法执行</translation>
    </message>
    <message>
        <source>Action finished</source>
        <translation>操作完成</translation>
    </message>
    <message>
        <source>Nothing to undo.</source>
        <translation>没有可撤销的操作。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo: %Ln file(s) put back</source>
        <translation>撤销：已恢复 %Ln 个文件</translation>
    </message>
    <message>
        <source>, %Ln with problems</source>
        <translation>，%Ln 个有问题</translation>
    </message>
    <message>
        <source>Undo finished</source>
        <translation>撤销完成</translation>
    </message>
    <message>
        <source>Select a file other than the kept one.</source>
        <translation>请选择保留文件以外的文件。</translation>
    </message>
    <message>
        <source>Same content</source>
        <translation>内容相同</translation>
    </message>
    <message>
        <source>These two files have the same content: they are duplicates.</source>
        <translation>这两个文件内容相同，确实是重复文件。</translation>
    </message>
    <message>
        <source>Remembered: not a duplicate of the kept file.</source>
        <translation>已记住：与保留的文件不重复。</translation>
    </message>
    <message>
        <source>Every file of this group has the same content.</source>
        <translation>此组所有文件内容相同。</translation>
    </message>
    <message>
        <source>Remembered: {name} is not a duplicate of this group.</source>
        <translation>已记住：{name} 与此组文件不重复。</translation>
    </message>
    <message>
        <source>%Ln decision(s) forgotten.</source>
        <translation>已忘记 %Ln 条判断。</translation>
    </message>
    <message>
        <source>%Ln file(s) removed from the results.</source>
        <translation>已从结果中移除 %Ln 个文件。</translation>
    </message>
    <message>
        <source>Saved to {path}.</source>
        <translation>已保存到 {path}。</translation>
    </message>
    <message>
        <source>Exported to {path}.</source>
        <translation>已导出到 {path}。</translation>
    </message>
    <message>
        <source>Opened %Ln group(s)</source>
        <translation>已打开 %Ln 组</translation>
    </message>
    <message>
        <source> (%Ln file(s)).</source>
        <translation>（%Ln 个文件）。</translation>
    </message>
    <message>
        <source>%Ln file(s) gone, left out.</source>
        <translation>%Ln 个文件已不存在，已略去。</translation>
    </message>
    <message>
        <source>%Ln file(s) changed since the scan: actions will skip them; scan again to refresh.</source>
        <translation>%Ln 个文件在扫描后有改动：操作会跳过它们；请重新扫描以更新。</translation>
    </message>
    <message>
        <source>Back to the scan results.</source>
        <translation>已回到扫描结果。</translation>
    </message>
    <message>
        <source>Starting the scan…</source>
        <translation>正在开始扫描…</translation>
    </message>
    <message>
        <source>Marking…</source>
        <translation>正在标记…</translation>
    </message>
    <message>
        <source>Working on the marked files…</source>
        <translation>正在处理已标记的文件…</translation>
    </message>
    <message>
        <source>Putting files back…</source>
        <translation>正在恢复文件…</translation>
    </message>
    <message>
        <source>Updating the list…</source>
        <translation>正在更新列表…</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Opening…</source>
        <translation>正在打开…</translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <source>Looking for similar files…</source>
        <translation>正在查找相似文件…</translation>
    </message>
    <message>
        <source>Measuring the files against the kept one…</source>
        <translation>正在将文件与保留的文件比较…</translation>
    </message>
</context>
<context>
    <name>Commands</name>
    <message>
        <source>Keep the oldest</source>
        <extracomment>The keep rules the Mark menu offers, in its order (core rule names).</extracomment>
        <translation>保留最旧的</translation>
    </message>
    <message>
        <source>Keep the newest</source>
        <translation>保留最新的</translation>
    </message>
    <message>
        <source>Keep the largest</source>
        <translation>保留最大的</translation>
    </message>
    <message>
        <source>Keep the smallest</source>
        <translation>保留最小的</translation>
    </message>
    <message>
        <source>Keep the highest resolution</source>
        <translation>保留分辨率最高的</translation>
    </message>
    <message>
        <source>Keep the best quality</source>
        <translation>保留质量最好的</translation>
    </message>
    <message>
        <source>Keep the shortest path</source>
        <translation>保留路径最短的</translation>
    </message>
    <message>
        <source>&amp;Open results…</source>
        <translation>打开结果(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save results…</source>
        <translation>保存结果(&amp;S)…</translation>
    </message>
    <message>
        <source>Export as &amp;CSV…</source>
        <translation>导出为 &amp;CSV…</translation>
    </message>
    <message>
        <source>Export as &amp;JSON…</source>
        <translation>导出为 &amp;JSON…</translation>
    </message>
    <message>
        <source>Scan se&amp;ttings…</source>
        <translation>扫描设置(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Filter…</source>
        <translation>筛选(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Copy path</source>
        <translation>复制路径(&amp;C)</translation>
    </message>
    <message>
        <source>Open &amp;file</source>
        <translation>打开文件(&amp;F)</translation>
    </message>
    <message>
        <source>Show in f&amp;older</source>
        <translation>在文件夹中显示(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Remove from results</source>
        <translation>从结果中移除(&amp;R)</translation>
    </message>
    <message>
        <source>Take the selected files out of this list (nothing on disk changes)</source>
        <translation>将所选文件移出此列表（磁盘上的文件不变）</translation>
    </message>
    <message>
        <source>&amp;Toggle mark</source>
        <translation>切换标记(&amp;T)</translation>
    </message>
    <message>
        <source>Mark &amp;all but the kept file</source>
        <translation>标记保留文件以外的全部(&amp;A)</translation>
    </message>
    <message>
        <source>In every group shown, mark each file except the bold one</source>
        <translation>在显示的每组中，标记粗体文件以外的所有文件</translation>
    </message>
    <message>
        <source>&amp;Suggested: keep each original</source>
        <translation>建议(&amp;S)：保留每组的原件</translation>
    </message>
    <message>
        <source>In every group shown, keep the file the scan suggests (the original) and mark the others</source>
        <translation>在显示的每个组中，保留扫描建议的文件（原件），标记其他文件</translation>
    </message>
    <message>
        <source>Mark &amp;none</source>
        <translation>全部取消标记(&amp;N)</translation>
    </message>
    <message>
        <source>Unmark every file of the groups shown; each keeps its original again</source>
        <translation>取消标记显示的各组中的所有文件；每组重新保留其原件</translation>
    </message>
    <message>
        <source>&amp;Invert marks</source>
        <translation>反向标记(&amp;I)</translation>
    </message>
    <message>
        <source>Mark every file in this &amp;folder</source>
        <translation>标记此文件夹中的所有文件(&amp;F)</translation>
    </message>
    <message>
        <source>Mark the files of the shown groups that are in the selected file&apos;s folder</source>
        <translation>标记显示的组中位于所选文件所在文件夹的文件</translation>
    </message>
    <message>
        <source>&amp;Keep this file</source>
        <translation>保留此文件(&amp;K)</translation>
    </message>
    <message>
        <source>Make the selected file the one its group keeps (bold)</source>
        <translation>将所选文件设为该组保留的文件（粗体）</translation>
    </message>
    <message>
        <source>Keep files in reference folders</source>
        <translation>保留参照文件夹中的文件</translation>
    </message>
    <message>
        <source>Move marked to &amp;trash</source>
        <translation>将标记的文件移到回收站(&amp;T)</translation>
    </message>
    <message>
        <source>Send the marked files to the trash (after showing the plan)</source>
        <translation>将标记的文件移到回收站（先显示计划）</translation>
    </message>
    <message>
        <source>&amp;Move marked to…</source>
        <translation>移动标记的文件到(&amp;M)…</translation>
    </message>
    <message>
        <source>Move the marked files to a folder, keeping their relative paths</source>
        <translation>将标记的文件移到某个文件夹，保留相对路径</translation>
    </message>
    <message>
        <source>Replace with &amp;hard links</source>
        <translation>替换为硬链接(&amp;H)</translation>
    </message>
    <message>
        <source>Replace each marked file with a hard link to the kept file</source>
        <translation>将每个标记的文件替换为指向保留文件的硬链接</translation>
    </message>
    <message>
        <source>Replace with &amp;symbolic links</source>
        <translation>替换为符号链接(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Undo last action</source>
        <translation>撤销上次操作(&amp;U)</translation>
    </message>
    <message>
        <source>Put back the files of the last action</source>
        <translation>恢复上次操作处理的文件</translation>
    </message>
    <message>
        <source>Not a duplicate of the &amp;kept file</source>
        <translation>与保留的文件不重复(&amp;K)</translation>
    </message>
    <message>
        <source>Remember that the selected file is not a duplicate of the bold one</source>
        <translation>记住所选文件与粗体文件不重复</translation>
    </message>
    <message>
        <source>Not a duplicate: take it &amp;out of the group</source>
        <translation>不重复：移出此组(&amp;O)</translation>
    </message>
    <message>
        <source>Remember that the selected file belongs to no file of its group</source>
        <translation>记住所选文件与本组任何文件都不重复</translation>
    </message>
    <message>
        <source>Remembered &amp;decisions…</source>
        <translation>已记住的判断(&amp;D)…</translation>
    </message>
    <message>
        <source>Find files &amp;like this</source>
        <translation>查找与此相似的文件(&amp;L)</translation>
    </message>
    <message>
        <source>Find files l&amp;ike…</source>
        <translation>查找与某文件相似的文件(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Back to the scan results</source>
        <translation>返回扫描结果(&amp;B)</translation>
    </message>
    <message>
        <source>Scan &amp;panel</source>
        <translation>扫描面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Expand all groups</source>
        <translation>展开所有组(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Collapse all groups</source>
        <translation>折叠所有组(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Next group</source>
        <translation>下一组(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Previous group</source>
        <translation>上一组(&amp;P)</translation>
    </message>
    <message>
        <source>Show &amp;bits differing</source>
        <translation>显示不同位数(&amp;B)</translation>
    </message>
    <message>
        <source>dupfinder &amp;help</source>
        <translation>dupfinder 帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About dupfinder</source>
        <translation>关于 dupfinder(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Mark</source>
        <translation>标记(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Actions</source>
        <translation>操作(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>查看(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Mark</source>
        <translation>标记</translation>
    </message>
    <message>
        <source>Mark files by a rule, or all, none, inverted</source>
        <translation>按规则标记文件，或全部、全不、反向标记</translation>
    </message>
    <message>
        <source>Trash marked</source>
        <translation>移到回收站</translation>
    </message>
    <message>
        <source>Move marked…</source>
        <translation>移动…</translation>
    </message>
    <message>
        <source>Replace with links</source>
        <translation>替换为链接</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Keep this</source>
        <translation>保留此文件</translation>
    </message>
    <message>
        <source>Not a duplicate</source>
        <translation>不是重复</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>More tools</source>
        <translation>更多工具</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Move to trash</source>
        <extracomment>Longer lists are cut (with a note) so that a huge plan still opens instantly.</extracomment>
        <translation>移到回收站</translation>
    </message>
    <message>
        <source>Move marked files to the trash?</source>
        <translation>将标记的文件移到回收站？</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Move marked files?</source>
        <translation>移动标记的文件？</translation>
    </message>
    <message>
        <source>Replace with hard links</source>
        <translation>替换为硬链接</translation>
    </message>
    <message>
        <source>Replace marked files with hard links?</source>
        <translation>将标记的文件替换为硬链接？</translation>
    </message>
    <message>
        <source>Replace with symbolic links</source>
        <translation>替换为符号链接</translation>
    </message>
    <message>
        <source>Replace marked files with links?</source>
        <translation>将标记的文件替换为链接？</translation>
    </message>
    <message>
        <source>Delete permanently</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Delete marked files permanently?</source>
        <translation>永久删除标记的文件？</translation>
    </message>
    <message>
        <source>… and %Ln more file(s)</source>
        <translation>……还有 %Ln 个文件</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Moved to</source>
        <translation>移动到</translation>
    </message>
    <message>
        <source>Link to</source>
        <translation>链接到</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Group {number} keeps {path}</source>
        <translation>第 {number} 组保留 {path}</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>nothing to do</source>
        <translation>无需处理</translation>
    </message>
    <message>
        <source>Every file was handled.</source>
        <translation>所有文件均已处理。</translation>
    </message>
    <message>
        <source>Files that were skipped or failed are listed first, with the reason.</source>
        <translation>跳过或失败的文件列在最前，并附原因。</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Files that could not be compared</source>
        <translation>无法比较的文件</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>%Ln file(s) skipped by the scan:</source>
        <translation>扫描跳过了 %Ln 个文件：</translation>
    </message>
    <message>
        <source>{a} is not a duplicate of {b}</source>
        <translation>{a} 与 {b} 不重复</translation>
    </message>
    <message>
        <source>{a} is not a duplicate of %Ln other file(s)</source>
        <translation>{a} 与其他 %Ln 个文件不重复</translation>
    </message>
    <message>
        <source>Group of %Ln file(s) hidden (with {a})</source>
        <translation>隐藏了含 %Ln 个文件的组（包括 {a}）</translation>
    </message>
    <message>
        <source>Remembered decisions</source>
        <translation>已记住的判断</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>判断</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Files you said are not duplicates stay apart in every scan, even after a rename. Forget a decision to see them grouped again.</source>
        <translation>您判定为不重复的文件在以后的每次扫描中都不会再归为一组，即使改了名也一样。忘记某条判断后，它们会重新归组。</translation>
    </message>
    <message>
        <source>No decision is remembered.</source>
        <translation>没有已记住的判断。</translation>
    </message>
    <message>
        <source>Forget selected</source>
        <translation>忘记所选</translation>
    </message>
    <message>
        <source>Forget all</source>
        <translation>全部忘记</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Finding near-duplicates&lt;/h3&gt;&lt;p&gt;Add folders on the left (or drop them there) and press &lt;b&gt;Scan&lt;/b&gt;. Tick &lt;b&gt;Reference&lt;/b&gt; beside a folder whose files must always be kept. &lt;b&gt;More settings…&lt;/b&gt; has hidden files, links, size limits and rotated pictures.&lt;/p&gt;&lt;h3&gt;Reading the results&lt;/h3&gt;&lt;p&gt;Each group holds files that are nearly the same; &lt;b&gt;Similarity&lt;/b&gt; says how alike. The &lt;b&gt;bold&lt;/b&gt; file is the one the group keeps: press &lt;b&gt;K&lt;/b&gt; (or right-click ▸ Keep this file) to keep another. Select a file to compare it with the kept one below. &lt;b&gt;Alt+Down&lt;/b&gt; and &lt;b&gt;Alt+Up&lt;/b&gt; go to the next and previous group.&lt;/p&gt;&lt;h3&gt;Marking and acting&lt;/h3&gt;&lt;p&gt;Tick files (or press &lt;b&gt;Space&lt;/b&gt;) to mark them, or use the &lt;b&gt;Mark&lt;/b&gt; menu: a rule, all but the kept file, none, inverted, or every file in a folder. Rules act on the groups shown by the filter. &lt;b&gt;Trash marked&lt;/b&gt; (Delete) shows the plan first, group by group; &lt;b&gt;Undo&lt;/b&gt; (Ctrl+Z) puts the files back.&lt;/p&gt;&lt;h3&gt;Not a duplicate&lt;/h3&gt;&lt;p&gt;Tell dupfinder that a file is not a duplicate of the kept file, or take it out of its group: it is remembered for later scans. Actions ▸ Remembered decisions lists them and can forget them.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;查找近似重复的文件&lt;/h3&gt;&lt;p&gt;在左侧添加文件夹（或把文件夹拖到那里），然后按&lt;b&gt;扫描&lt;/b&gt;。在必须始终保留其文件的文件夹旁勾选&lt;b&gt;参照&lt;/b&gt;。&lt;b&gt;更多设置…&lt;/b&gt;中有隐藏文件、链接、大小限制和旋转的图片等选项。&lt;/p&gt;&lt;h3&gt;阅读结果&lt;/h3&gt;&lt;p&gt;每组中的文件几乎相同；&lt;b&gt;相似度&lt;/b&gt;表示有多相似。&lt;b&gt;粗体&lt;/b&gt;文件是该组保留的文件：按 &lt;b&gt;K&lt;/b&gt;（或右键单击 ▸ 保留此文件）可改为保留其他文件。选择一个文件，就会在下方与保留的文件比较。&lt;b&gt;Alt+下&lt;/b&gt;和 &lt;b&gt;Alt+上&lt;/b&gt;跳到下一组和上一组。&lt;/p&gt;&lt;h3&gt;标记与处理&lt;/h3&gt;&lt;p&gt;勾选文件（或按&lt;b&gt;空格&lt;/b&gt;）来标记，或使用&lt;b&gt;标记&lt;/b&gt;菜单：按规则、除保留文件外全部、全不、反向，或某个文件夹中的所有文件。规则只作用于筛选后显示的组。&lt;b&gt;移到回收站&lt;/b&gt;（Delete）会先逐组显示计划；&lt;b&gt;撤销&lt;/b&gt;（Ctrl+Z）可恢复文件。&lt;/p&gt;&lt;h3&gt;不是重复&lt;/h3&gt;&lt;p&gt;告诉 dupfinder 某个文件与保留的文件不重复，或把它移出所在的组：以后的扫描会记住。操作 ▸ 已记住的判断 会列出这些判断，并可忘记它们。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Files like this one&lt;/h3&gt;&lt;p&gt;Right-click a document or picture ▸ &lt;b&gt;Find files like this&lt;/b&gt; (Ctrl+L), drop a file on the window, or choose one with Edit ▸ &lt;b&gt;Find files like…&lt;/b&gt;. dupfinder searches the folders listed on the left (when none are listed, the folders of the last scan) and lists the files like it, most similar first, as one group that keeps your file. Compare, mark and trash them as usual; &lt;b&gt;Back to the scan results&lt;/b&gt; (Alt+Left) brings the scan&apos;s list back.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;与此文件相似的文件&lt;/h3&gt;&lt;p&gt;右键单击某个文档或图片 ▸ &lt;b&gt;查找与此相似的文件&lt;/b&gt;（Ctrl+L），或把文件拖到窗口上，或用 编辑 ▸ &lt;b&gt;查找与某文件相似的文件…&lt;/b&gt; 选择一个文件。dupfinder 会在左侧列出的文件夹中搜索（如果没有列出文件夹，则在上次扫描的文件夹中搜索），并把与它相似的文件按相似度从高到低列为一组，该组保留您的文件。您可以像平常一样比较、标记这些文件并把它们移到回收站；&lt;b&gt;返回扫描结果&lt;/b&gt;（Alt+Left）会重新显示扫描的列表。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>dupfinder help</source>
        <translation>dupfinder 帮助</translation>
    </message>
    <message>
        <source>Help</source>
        <translation>帮助</translation>
    </message>
    <message>
        <source>About dupfinder</source>
        <translation>关于 dupfinder</translation>
    </message>
    <message>
        <source>dupfinder icon</source>
        <translation>dupfinder 图标</translation>
    </message>
    <message>
        <source>&lt;p&gt;Finds near-duplicate documents and images: files that are almost the same, not only byte-identical copies.&lt;/p&gt;&lt;p&gt;Files are only ever moved to the trash (or where you choose) after you have seen the plan, and the last action can be undone.&lt;/p&gt;</source>
        <translation>&lt;p&gt;查找近似重复的文档和图片：几乎相同的文件，而不仅仅是逐字节相同的副本。&lt;/p&gt;&lt;p&gt;只有在您看过计划之后，文件才会被移到回收站（或您选择的位置），并且可以撤销上次操作。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>Keeping</name>
    <message>
        <source>in a reference folder</source>
        <translation>位于参考文件夹</translation>
    </message>
    <message>
        <source>the others are edited copies of it</source>
        <translation>其他文件是它的编辑副本</translation>
    </message>
    <message>
        <source>no copy marks</source>
        <translation>没有副本标记</translation>
    </message>
    <message>
        <source>fewest copy marks</source>
        <translation>副本标记最少</translation>
    </message>
    <message>
        <source>most pixels</source>
        <translation>像素最多</translation>
    </message>
    <message>
        <source>lossless</source>
        <translation>无损格式</translation>
    </message>
    <message>
        <source>highest bitrate</source>
        <translation>码率最高</translation>
    </message>
    <message>
        <source>longest</source>
        <translation>最长</translation>
    </message>
    <message>
        <source>least compressed</source>
        <translation>压缩最少</translation>
    </message>
    <message>
        <source>oldest</source>
        <translation>最旧</translation>
    </message>
    <message>
        <source>least deep folder</source>
        <translation>文件夹层级最浅</translation>
    </message>
    <message>
        <source>largest</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Kept as the original: the files are alike</source>
        <translation>作为原件保留：这些文件相同</translation>
    </message>
    <message>
        <source>Kept as the original: {reasons}</source>
        <translation>作为原件保留：{reasons}</translation>
    </message>
    <message>
        <source>Kept by “{rule}”</source>
        <translation>按“{rule}”保留</translation>
    </message>
    <message>
        <source>Kept: your choice</source>
        <translation>保留：您的选择</translation>
    </message>
    <message>
        <source>: {reasons}</source>
        <translation>：{reasons}</translation>
    </message>
</context>
<context>
    <name>Media</name>
    <message>
        <source>{codec}, lossless</source>
        <extracomment>Seconds of each member that &quot;Play&quot; plays. Where in the matched part the frames of a video are taken (shares of its length). Where in the matched part a song is played from (share of its length). A span this close to a file&apos;s ends (seconds, or this share of its length) covers it all: prints are cut in frames of up to a second. ffprobe&apos;s codec names as players and shops write them.</extracomment>
        <translation>{codec}，无损</translation>
    </message>
    <message>
        <source>lossless format</source>
        <translation>无损格式</translation>
    </message>
    <message>
        <source>{bitrate} {codec}</source>
        <translation>{bitrate} {codec}</translation>
    </message>
    <message>
        <source>{width} × {height}</source>
        <translation>{width} × {height}</translation>
    </message>
    <message>
        <source>Kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Selected</source>
        <translation>选中</translation>
    </message>
    <message>
        <source>Also in the group</source>
        <translation>同组其他文件</translation>
    </message>
    <message>
        <source>the others were compared with this file</source>
        <translation>其他文件都与此文件比较</translation>
    </message>
    <message>
        <source>the kept file</source>
        <translation>保留的文件</translation>
    </message>
    <message>
        <source>“{name}”</source>
        <translation>“{name}”</translation>
    </message>
    <message>
        <source>the same bytes as {other}</source>
        <translation>与{other}字节完全相同</translation>
    </message>
    <message>
        <source>{percent} alike</source>
        <translation>相似度 {percent}</translation>
    </message>
    <message>
        <source>the whole file matches {other}</source>
        <translation>整个文件与{other}匹配</translation>
    </message>
    <message>
        <source>all of it matches {span} of {other}</source>
        <translation>整个文件与{other}的 {span} 匹配</translation>
    </message>
    <message>
        <source>{span} matches the same part of {other}</source>
        <translation>{span} 与{other}的同一部分匹配</translation>
    </message>
    <message>
        <source>{span} matches all of {other}</source>
        <translation>{span} 与{other}的全部匹配</translation>
    </message>
    <message>
        <source>{span} matches {theirs} of {other}</source>
        <translation>{span} 与{other}的 {theirs} 匹配</translation>
    </message>
    <message>
        <source>Play plays {seconds} seconds of each file with ffplay.</source>
        <extracomment>Which of title, artist, album differ from the kept file&apos;s (shown stressed). The part of this file that matched (seconds), shaded on its waveform; None: unknown. The moments of this file shown as frames (videos), the same moments on every card. Where &quot;Play&quot; starts in this file: the same moment on every card. Where this file&apos;s start lies on the group&apos;s shared timeline (seconds from the first file&apos;s start): a copy cut 8 s later starts at 8, so the same moments line up. Why the kept file is kept (&quot;Kept as the original: lossless, highest bitrate&quot;). The shared timeline every strip is drawn on (seconds of the first file; it starts before 0 when a member holds more before the matched part than the first file).</extracomment>
        <translation>“播放”用 ffplay 播放每个文件的 {seconds} 秒。</translation>
    </message>
    <message>
        <source>Play opens a {seconds}-second clip of the file in your system&apos;s player.</source>
        <translation>“播放”会在系统播放器中打开该文件的 {seconds} 秒片段。</translation>
    </message>
    <message>
        <source>…</source>
        <extracomment>Peaks per waveform: one per pixel of a wide strip. Long side of a video frame, in pixels. The most members shown as cards (a group of many copies lists the rest by count). Files whose waveforms or frames are kept for going back to them.</extracomment>
        <translation>…</translation>
    </message>
    <message>
        <source>File</source>
        <extracomment>Emitted when every preview of the shown group is drawn (tests and screenshots wait).</extracomment>
        <translation>文件</translation>
    </message>
    <message>
        <source>Frames at the same moments</source>
        <translation>同一时刻的画面</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Artist</source>
        <translation>艺术家</translation>
    </message>
    <message>
        <source>Album</source>
        <translation>专辑</translation>
    </message>
    <message>
        <source>Length</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>{length} · {size} · {quality}</source>
        <translation>{length} · {size} · {quality}</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Play {name}</source>
        <translation>播放 {name}</translation>
    </message>
    <message>
        <source>Play {seconds} seconds from {time}</source>
        <translation>从 {time} 起播放 {seconds} 秒</translation>
    </message>
    <message>
        <source>Waveform of {name}</source>
        <translation>{name} 的波形</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>and %n more file(s) in this group</source>
        <translation>本组还有 %n 个文件</translation>
    </message>
    <message>
        <source>Cannot show: {problem}</source>
        <translation>无法显示：{problem}</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>ffplay could not play the file: {problem}</source>
        <translation>ffplay 无法播放该文件：{problem}</translation>
    </message>
    <message>
        <source>Shaded: the part that matched. The line: where Play starts. Every file of the group on one timeline, the same moment at the same place.</source>
        <translation>阴影：匹配的部分。竖线：播放开始的位置。组内每个文件都在同一时间轴上，同一时刻位于同一位置。</translation>
    </message>
</context>
<context>
    <name>Panel</name>
    <message>
        <source>Everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Documents only</source>
        <translation>仅文档</translation>
    </message>
    <message>
        <source>Pictures only</source>
        <translation>仅图片</translation>
    </message>
    <message>
        <source>Music only</source>
        <translation>仅音乐</translation>
    </message>
    <message>
        <source>Videos only</source>
        <translation>仅视频</translation>
    </message>
    <message>
        <source>≥ {percent}% of the text shared</source>
        <translation>≥ {percent}% 的文本相同</translation>
    </message>
    <message>
        <source>≥ {percent}% alike</source>
        <translation>≥ {percent}% 相似</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参照</translation>
    </message>
    <message>
        <source>Folders to scan</source>
        <translation>要扫描的文件夹</translation>
    </message>
    <message>
        <source>Files in a reference folder are always kept</source>
        <translation>参照文件夹中的文件始终保留</translation>
    </message>
    <message>
        <source>Drop folders here
or use “Add folder…”</source>
        <translation>将文件夹拖到这里
或使用“添加文件夹…”</translation>
    </message>
    <message>
        <source> (default)</source>
        <translation>（默认）</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Folders</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>all files, or e.g. *.pdf; *.jpg</source>
        <translation>所有文件，或如 *.pdf; *.jpg</translation>
    </message>
    <message>
        <source>e.g. node_modules/; *.tmp  (as in .gitignore)</source>
        <translation>如 node_modules/; *.tmp（与 .gitignore 相同）</translation>
    </message>
    <message>
        <source>More settings…</source>
        <translation>更多设置…</translation>
    </message>
    <message>
        <source>Hidden files, links, size limits, identical files, rotated pictures, grouping, the cache</source>
        <translation>隐藏文件、链接、大小限制、完全相同的文件、旋转的图片、分组、缓存</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Compare:</source>
        <translation>比较：</translation>
    </message>
    <message>
        <source>Include:</source>
        <translation>包括：</translation>
    </message>
    <message>
        <source>Exclude:</source>
        <translation>排除：</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Include</source>
        <translation>包括</translation>
    </message>
    <message>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <source>Document similarity</source>
        <translation>文档相似度</translation>
    </message>
    <message>
        <source>Picture similarity</source>
        <translation>图片相似度</translation>
    </message>
    <message>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message>
        <source>How alike two files must be to count as near-duplicates. Higher finds only very close copies; lower finds looser matches.</source>
        <translation>两个文件要多相似才算近似重复。越高只找非常接近的副本；越低找到的匹配越宽松。</translation>
    </message>
    <message>
        <source>Documents:</source>
        <translation>文档：</translation>
    </message>
    <message>
        <source>Pictures:</source>
        <translation>图片：</translation>
    </message>
    <message>
        <source>Scan</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Add a folder to scan</source>
        <translation>添加要扫描的文件夹</translation>
    </message>
    <message>
        <source>Add at least one folder to scan.</source>
        <translation>请至少添加一个要扫描的文件夹。</translation>
    </message>
</context>
<context>
    <name>Preview</name>
    <message>
        <source>Show differences</source>
        <translation>显示差异</translation>
    </message>
    <message>
        <source>Zoom:</source>
        <translation>缩放：</translation>
    </message>
    <message>
        <source>unknown (no suffix)</source>
        <translation>未知（无扩展名）</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>大小：</translation>
    </message>
    <message>
        <source>Type:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <source>Content hash:</source>
        <translation>内容哈希：</translation>
    </message>
    <message>
        <source>Modified:</source>
        <translation>修改时间：</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>{size} ({count} bytes)</source>
        <translation>{size}（{count} 字节）</translation>
    </message>
    <message>
        <source>not computed</source>
        <translation>未计算</translation>
    </message>
    <message>
        <source>Kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Selected</source>
        <translation>所选</translation>
    </message>
    <message>
        <source>Byte-identical: the same size and the same BLAKE3 hash of every byte.</source>
        <translation>逐字节相同：大小相同，全部字节的 BLAKE3 哈希也相同。</translation>
    </message>
    <message>
        <source>Not known to be identical.</source>
        <translation>未确认完全相同。</translation>
    </message>
    <message>
        <source>{name} — cannot show: {problem}</source>
        <extracomment>Longest side of the decoded preview; enough for a sharp view on a 4K screen. The most a small picture is enlarged to fit (a 16-pixel icon fills a 256-pixel pane). Zoom choices: both fitted at one scale, each fitted on its own, or a fixed scale.</extracomment>
        <translation>{name} — 无法显示：{problem}</translation>
    </message>
    <message>
        <source>{width} × {height} px</source>
        <translation>{width} × {height} 像素</translation>
    </message>
    <message>
        <source>{pixels}, shown at {percent} %</source>
        <translation>{pixels}，按 {percent}% 显示</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应</translation>
    </message>
    <message>
        <source>Fit each</source>
        <translation>各自适应</translation>
    </message>
    <message>
        <source>Fit: both pictures at one scale, so their sizes compare. Fit each: each as large as its pane, to compare what they show.</source>
        <extracomment>The checkerboard behind transparent parts: two greys a white and a black icon both show on, in squares of this many pixels. Emitted after both images are shown (tests and screenshots wait for it).</extracomment>
        <translation>适应：两张图片按同一比例显示，便于比较大小。各自适应：每张图片都尽量填满自己的窗格，便于比较内容。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <extracomment>What the selected picture changed from the kept one, named (``Member.edits``).</extracomment>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>What changed: {edits}</source>
        <translation>改动之处：{edits}</translation>
    </message>
    <message>
        <source>Cannot show: {message}</source>
        <translation>无法显示：{message}</translation>
    </message>
    <message>
        <source>Mean difference {value}</source>
        <translation>平均差异 {value}</translation>
    </message>
    <message>
        <source>Differences (red) over the selected image</source>
        <translation>所选图片上的差异（红色）</translation>
    </message>
    <message>
        <source>Ignore whitespace</source>
        <extracomment>Emitted after the panes show a new diff (tests and screenshots wait for it).</extracomment>
        <translation>忽略空白</translation>
    </message>
    <message>
        <source>Ignore case</source>
        <translation>忽略大小写</translation>
    </message>
    <message>
        <source>Text of the kept file</source>
        <translation>保留文件的文本</translation>
    </message>
    <message>
        <source>Text of the selected file</source>
        <translation>所选文件的文本</translation>
    </message>
    <message>
        <source>&lt;b&gt;Kept&lt;/b&gt; · {name}</source>
        <extracomment>The row both panes are held on until the user scrolls (see _scroll_to_first_change).</extracomment>
        <translation>&lt;b&gt;保留&lt;/b&gt; · {name}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Selected&lt;/b&gt; · {name}</source>
        <translation>&lt;b&gt;所选&lt;/b&gt; · {name}</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Cannot compare: {message}</source>
        <translation>无法比较：{message}</translation>
    </message>
    <message>
        <source>Cannot read: {problems}</source>
        <translation>无法读取：{problems}</translation>
    </message>
    <message>
        <source>Same text (under the chosen options)</source>
        <translation>文本相同（按所选选项）</translation>
    </message>
    <message>
        <source>%Ln changed line(s)</source>
        <translation>%Ln 行有改动</translation>
    </message>
    <message>
        <source>%Ln word(s) only on the left</source>
        <translation>%Ln 个词只在左边</translation>
    </message>
    <message>
        <source>%Ln only on the right</source>
        <translation>%Ln 个只在右边</translation>
    </message>
    <message>
        <source>long text: first part shown</source>
        <translation>文本较长：只显示开头部分</translation>
    </message>
</context>
<context>
    <name>Progress</name>
    <message>
        <source>Finding files</source>
        <extracomment>Seconds a phase runs, and share of it done, before an estimate is shown. Time constant (seconds) of the smoothing of the finish time. Seconds of recent samples the rate is measured over, at most.</extracomment>
        <translation>正在查找文件</translation>
    </message>
    <message>
        <source>Fingerprinting</source>
        <translation>正在计算指纹</translation>
    </message>
    <message>
        <source>Comparing bytes</source>
        <translation>正在比较字节</translation>
    </message>
    <message>
        <source>Comparing</source>
        <translation>正在比较</translation>
    </message>
    <message>
        <source>Finishing</source>
        <translation>即将完成</translation>
    </message>
    <message>
        <source>Working</source>
        <translation>正在处理</translation>
    </message>
    <message>
        <source>Scan stopped.</source>
        <translation>扫描已停止。</translation>
    </message>
    <message>
        <source>Scan stopped after finding %Ln file(s).</source>
        <translation>扫描已停止：已找到 %Ln 个文件。</translation>
    </message>
    <message>
        <source>Scan stopped after fingerprinting {done} of %Ln file(s).</source>
        <translation>扫描已停止：已为 %Ln 个文件中的 {done} 个计算指纹。</translation>
    </message>
    <message>
        <source>Scan stopped after comparing the bytes of {done} of %Ln file(s).</source>
        <translation>扫描已停止：已比较 %Ln 个文件中 {done} 个的字节。</translation>
    </message>
    <message>
        <source>Scan stopped while grouping %Ln file(s).</source>
        <translation>扫描已停止：正在对 %Ln 个文件分组时停止。</translation>
    </message>
    <message>
        <source>%n s</source>
        <translation>%n 秒</translation>
    </message>
    <message>
        <source>%n min</source>
        <translation>%n 分钟</translation>
    </message>
    <message>
        <source>{hours:.1f} h</source>
        <translation>{hours:.1f} 小时</translation>
    </message>
    <message>
        <source>{phase}: %Ln so far</source>
        <translation>{phase}：已找到 %Ln 个</translation>
    </message>
    <message>
        <source>{phase}: {done} of %Ln</source>
        <translation>{phase}：{done} / %Ln</translation>
    </message>
    <message>
        <source> · this step about {time} left</source>
        <translation> · 此步骤约剩 {time}</translation>
    </message>
</context>
<context>
    <name>Results</name>
    <message>
        <source>Name</source>
        <extracomment>Role returning the Member of a member row (None for a group row). Role returning the Group of any row.</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Dimensions</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Bits differing</source>
        <translation>不同位数</translation>
    </message>
    <message>
        <source>Identical</source>
        <extracomment>Emitted whenever the set of marked paths changes. Emitted instead of thousands of dataChanged ranges when many check boxes change at once: the view only has to repaint what it shows (check states never change a row&apos;s size), while a dataChanged over every group makes QTreeView revisit every row.</extracomment>
        <translation>完全相同</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Kept (bold)</source>
        <translation>保留（粗体）</translation>
    </message>
    <message>
        <source>How many of the 64 fingerprint bits differ from the group&apos;s first file</source>
        <translation>与本组第一个文件相比，64 位指纹中有多少位不同</translation>
    </message>
    <message>
        <source>Cannot read this picture: {problem}</source>
        <translation>无法读取此图片：{problem}</translation>
    </message>
    <message>
        <source>Has %Ln other name(s) (hard links): removing this one frees no space</source>
        <translation>另有 %Ln 个名称（硬链接）：删除此名称不会释放空间</translation>
    </message>
    <message>
        <source>Byte-identical to {names}</source>
        <translation>与 {names} 逐字节相同</translation>
    </message>
    <message>
        <source>In a reference folder: always kept</source>
        <translation>位于参照文件夹：始终保留</translation>
    </message>
    <message>
        <source>Right-click another file to keep it instead</source>
        <translation>右键单击另一个文件可改为保留它</translation>
    </message>
    <message>
        <source>Freed at most by keeping only the smallest file of the group</source>
        <translation>只保留本组最小的文件时最多可释放的空间</translation>
    </message>
    <message>
        <source>Group {number} · %n identical file(s)</source>
        <translation>第 {number} 组 · %n 个完全相同的文件</translation>
    </message>
    <message>
        <source>Group {number} · %n picture(s)</source>
        <translation>第 {number} 组 · %n 张图片</translation>
    </message>
    <message>
        <source>Group {number} · %n recording(s)</source>
        <translation>第 {number} 组 · %n 段录音</translation>
    </message>
    <message>
        <source>Group {number} · %n video(s)</source>
        <translation>第 {number} 组 · %n 个视频</translation>
    </message>
    <message>
        <source>Group {number} · %n document(s)</source>
        <translation>第 {number} 组 · %n 个文档</translation>
    </message>
    <message>
        <source>Groups of near-duplicate files</source>
        <extracomment>Delete pressed in the results: trash the marked files (after confirmation). K pressed: keep the current file (it becomes its group&apos;s bold one).</extracomment>
        <translation>近似重复文件的分组</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Linked through any chain of matches</source>
        <translation>通过任意匹配链相连</translation>
    </message>
    <message>
        <source>Every file matches the group&apos;s first</source>
        <translation>每个文件都与组内第一个文件匹配</translation>
    </message>
    <message>
        <source>Scan settings</source>
        <translation>扫描设置</translation>
    </message>
    <message>
        <source>Include hidden files and folders</source>
        <translation>包括隐藏的文件和文件夹</translation>
    </message>
    <message>
        <source>Follow symbolic links</source>
        <translation>跟随符号链接</translation>
    </message>
    <message>
        <source>any size</source>
        <translation>任意大小</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Smallest file:</source>
        <translation>最小文件：</translation>
    </message>
    <message>
        <source>Largest file:</source>
        <translation>最大文件：</translation>
    </message>
    <message>
        <source>Match mirrored and 90°-rotated pictures</source>
        <translation>匹配镜像和旋转 90° 的图片</translation>
    </message>
    <message>
        <source>Find byte-identical files of every type</source>
        <translation>查找所有类型中逐字节相同的文件</translation>
    </message>
    <message>
        <source>Copies with exactly the same bytes. When documents and pictures are both compared, other files too (archives, audio, video, programs…), compared by their bytes only.</source>
        <translation>字节完全相同的副本。同时比较文档和图片时，也包括其他文件（压缩包、音频、视频、程序……），这些文件只按字节比较。</translation>
    </message>
    <message>
        <source>Matching</source>
        <translation>匹配</translation>
    </message>
    <message>
        <source>Documents grouped:</source>
        <translation>文档分组：</translation>
    </message>
    <message>
        <source>Pictures grouped:</source>
        <translation>图片分组：</translation>
    </message>
    <message>
        <source>one per processor</source>
        <translation>每个处理器一个</translation>
    </message>
    <message>
        <source>Remember fingerprints between scans (cache)</source>
        <translation>在扫描之间记住指纹（缓存）</translation>
    </message>
    <message>
        <source>Work</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Worker processes:</source>
        <translation>工作进程：</translation>
    </message>
    <message>
        <source>Empty: the usual cache folder</source>
        <translation>留空：使用默认缓存文件夹</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Cache folder:</source>
        <translation>缓存文件夹：</translation>
    </message>
    <message>
        <source>Clear cache</source>
        <translation>清除缓存</translation>
    </message>
    <message>
        <source>Smallest file</source>
        <translation>最小文件</translation>
    </message>
    <message>
        <source>Largest file</source>
        <translation>最大文件</translation>
    </message>
    <message>
        <source>Documents grouped</source>
        <translation>文档分组</translation>
    </message>
    <message>
        <source>Pictures grouped</source>
        <translation>图片分组</translation>
    </message>
    <message>
        <source>Worker processes</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>Cache folder</source>
        <translation>缓存文件夹</translation>
    </message>
    <message>
        <source>Choose the cache folder</source>
        <translation>选择缓存文件夹</translation>
    </message>
    <message>
        <source>Cache size</source>
        <translation>缓存大小</translation>
    </message>
    <message>
        <source>The cache holds {size}.</source>
        <translation>缓存占用 {size}。</translation>
    </message>
    <message>
        <source>Cache cleared: {size} freed.</source>
        <translation>缓存已清除：释放了 {size}。</translation>
    </message>
    <message>
        <source>%Ln file(s) could not be removed:</source>
        <translation>%Ln 个文件无法删除：</translation>
    </message>
</context>
<context>
    <name>Similar</name>
    <message>
        <source>%Ln folder(s)</source>
        <extracomment>Searched folders named in full; more are counted.</extracomment>
        <translation>%Ln 个文件夹</translation>
    </message>
    <message>
        <source>{where} (the last scan’s folders)</source>
        <translation>{where}（上次扫描的文件夹）</translation>
    </message>
    <message>
        <source>%Ln file(s) like {name} in {where}.</source>
        <translation>在 {where} 中找到 %Ln 个与 {name} 相似的文件。</translation>
    </message>
    <message>
        <source>Files like this one</source>
        <translation>与此文件相似的文件</translation>
    </message>
    <message>
        <source>No file like {name} in {where}.</source>
        <translation>在 {where} 中没有与 {name} 相似的文件。</translation>
    </message>
    <message>
        <source>Nothing similar found</source>
        <translation>未找到相似文件</translation>
    </message>
    <message>
        <source>{name} is not a document, a picture, music or a video. dupfinder finds files like a document (text, PDF, Word, OpenDocument, HTML, e-book…), a picture, a song or a video.</source>
        <translation>{name} 不是文档、图片、音乐或视频。dupfinder 可查找与文档（文本、PDF、Word、OpenDocument、HTML、电子书…）、图片、歌曲或视频相似的文件。</translation>
    </message>
    <message>
        <source>Not a kind dupfinder compares</source>
        <translation>不是 dupfinder 比较的文件类型</translation>
    </message>
    <message>
        <source>{name} cannot be compared: {problem}</source>
        <translation>无法比较 {name}：{problem}</translation>
    </message>
    <message>
        <source>Cannot compare this file</source>
        <translation>无法比较此文件</translation>
    </message>
    <message>
        <source>Nowhere to search</source>
        <translation>没有可搜索的位置</translation>
    </message>
    <message>
        <source>Add the folders to search on the left, or scan once with the cache on: dupfinder then remembers the folders of the last scan.</source>
        <translation>请在左侧添加要搜索的文件夹，或在开启缓存的情况下扫描一次：dupfinder 会记住上次扫描的文件夹。</translation>
    </message>
    <message>
        <source>Search stopped</source>
        <translation>搜索已停止</translation>
    </message>
    <message>
        <source>Search for files like {name} stopped.</source>
        <translation>查找与 {name} 相似的文件已停止。</translation>
    </message>
    <message>
        <source>Pictures like {name}: %Ln found</source>
        <translation>与 {name} 相似的图片：找到 %Ln 张</translation>
    </message>
    <message>
        <source>Recordings like {name}: %Ln found</source>
        <translation>与 {name} 相似的录音：找到 %Ln 个</translation>
    </message>
    <message>
        <source>Videos like {name}: %Ln found</source>
        <translation>与 {name} 相似的视频：找到 %Ln 个</translation>
    </message>
    <message>
        <source>Documents like {name}: %Ln found</source>
        <translation>与 {name} 相似的文档：找到 %Ln 个</translation>
    </message>
    <message>
        <source>Pictures like {name}: none left in the list</source>
        <translation>与 {name} 相似的图片：列表中已没有剩余</translation>
    </message>
    <message>
        <source>Recordings like {name}: none left in the list</source>
        <translation>与 {name} 相似的录音：列表中已无</translation>
    </message>
    <message>
        <source>Videos like {name}: none left in the list</source>
        <translation>与 {name} 相似的视频：列表中已无</translation>
    </message>
    <message>
        <source>Documents like {name}: none left in the list</source>
        <translation>与 {name} 相似的文档：列表中已没有剩余</translation>
    </message>
    <message>
        <source>in {where}</source>
        <translation>位于 {where}</translation>
    </message>
    <message>
        <source>No file like {name} is left in this list.</source>
        <translation>此列表中已没有与 {name} 相似的文件。</translation>
    </message>
    <message>
        <source>Documents and pictures</source>
        <translation>文档和图片</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>Back to the scan results</source>
        <translation>返回扫描结果</translation>
    </message>
    <message>
        <source>Searches the folders listed on the left.</source>
        <translation>在左侧列出的文件夹中搜索。</translation>
    </message>
    <message>
        <source>Searches the folders of the last scan (no folder is listed on the left).</source>
        <translation>在上次扫描的文件夹中搜索（左侧没有列出文件夹）。</translation>
    </message>
    <message>
        <source>Cannot search</source>
        <translation>无法搜索</translation>
    </message>
    <message>
        <source>Find files like…</source>
        <translation>查找相似文件…</translation>
    </message>
</context>
<context>
    <name>Window</name>
    <message>
        <source>Loading…</source>
        <extracomment>Where the main window keeps its place and size (``Settings.save_state(&quot;geometry&quot;)``).</extracomment>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Filter by name or folder (Ctrl+F)</source>
        <extracomment>Results with more groups than this open only their first groups (layout cost).</extracomment>
        <translation>按名称或文件夹筛选（Ctrl+F）</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Select a file to compare it with the file its group keeps.</source>
        <translation>选择一个文件，将它与本组保留的文件比较。</translation>
    </message>
    <message>
        <source>Totals</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Files skipped by the scan</source>
        <translation>扫描跳过的文件</translation>
    </message>
    <message>
        <source>%Ln file(s) skipped…</source>
        <translation>跳过了 %Ln 个文件…</translation>
    </message>
    <message>
        <source>Cannot scan</source>
        <translation>无法扫描</translation>
    </message>
    <message>
        <source>Move marked files to</source>
        <translation>将标记的文件移动到</translation>
    </message>
    <message>
        <source>Copied %Ln path(s).</source>
        <translation>已复制 %Ln 个路径。</translation>
    </message>
    <message>
        <source>No application opens {path}</source>
        <translation>没有应用程序能打开 {path}</translation>
    </message>
    <message>
        <source>dupfinder results (*.json)</source>
        <translation>dupfinder 结果 (*.json)</translation>
    </message>
    <message>
        <source>Save results</source>
        <translation>保存结果</translation>
    </message>
    <message>
        <source>Open results</source>
        <translation>打开结果</translation>
    </message>
    <message>
        <source>Export results</source>
        <translation>导出结果</translation>
    </message>
    <message>
        <source>Scanning… the groups appear here when the scan is done.</source>
        <translation>正在扫描……扫描完成后分组会显示在这里。</translation>
    </message>
    <message>
        <source>Press Scan to look for near-duplicates.</source>
        <translation>按“扫描”查找近似重复的文件。</translation>
    </message>
    <message>
        <source>Add folders on the left, then press Scan.</source>
        <translation>在左侧添加文件夹，然后按“扫描”。</translation>
    </message>
    <message>
        <source>No groups left to review: each was acted on or set aside.</source>
        <translation>没有待查看的组了：每组都已处理或搁置。</translation>
    </message>
    <message>
        <source>No near-duplicates found.</source>
        <translation>未找到近似重复的文件。</translation>
    </message>
    <message>
        <source>No group matches the filter.</source>
        <translation>没有符合筛选条件的组。</translation>
    </message>
    <message>
        <source>%Ln group(s)</source>
        <translation>%Ln 组</translation>
    </message>
    <message>
        <source>%Ln file(s)</source>
        <translation>%Ln 个文件</translation>
    </message>
    <message>
        <source>up to {size} reclaimable</source>
        <translation>最多可释放 {size}</translation>
    </message>
    <message>
        <source>showing {shown} of </source>
        <translation>显示 {shown} / </translation>
    </message>
    <message>
        <source>%Ln marked ({size})</source>
        <translation>已标记 %Ln 个（{size}）</translation>
    </message>
    <message>
        <source>Nothing to undo</source>
        <translation>没有可撤销的操作</translation>
    </message>
    <message>
        <source>Put back %Ln file(s) of the last action</source>
        <translation>恢复上次操作的 %Ln 个文件</translation>
    </message>
    <message>
        <source>A scan is running. Stop it and quit?</source>
        <translation>正在扫描。停止扫描并退出？</translation>
    </message>
    <message>
        <source>A task is running. Stop after the current file and quit?</source>
        <translation>有任务正在运行。处理完当前文件后停止并退出？</translation>
    </message>
    <message>
        <source>Quit dupfinder</source>
        <translation>退出 dupfinder</translation>
    </message>
</context>
<context>
    <name>Wording</name>
    <message>
        <source>%Ln file(s) moved to the trash</source>
        <translation>%Ln 个文件已移到回收站</translation>
    </message>
    <message>
        <source>%Ln file(s) moved</source>
        <translation>%Ln 个文件已移动</translation>
    </message>
    <message>
        <source>%Ln file(s) replaced with hard links</source>
        <translation>%Ln 个文件已替换为硬链接</translation>
    </message>
    <message>
        <source>%Ln file(s) replaced with symbolic links</source>
        <translation>%Ln 个文件已替换为符号链接</translation>
    </message>
    <message>
        <source>%Ln file(s) deleted</source>
        <translation>%Ln 个文件已删除</translation>
    </message>
    <message>
        <source>%Ln file(s)</source>
        <translation>%Ln 个文件</translation>
    </message>
    <message>
        <source> ({size} freed)</source>
        <translation>（释放了 {size}）</translation>
    </message>
    <message>
        <source> · %Ln skipped</source>
        <translation> · %Ln 个跳过</translation>
    </message>
    <message>
        <source> · %Ln failed</source>
        <translation> · %Ln 个失败</translation>
    </message>
    <message>
        <source> · stopped</source>
        <translation> · 已停止</translation>
    </message>
    <message>
        <source>Put back the %Ln file(s) moved to the trash</source>
        <translation>恢复移到回收站的 %Ln 个文件</translation>
    </message>
    <message>
        <source>Put back the %Ln file(s) moved to {folder}</source>
        <translation>恢复移动到 {folder} 的 %Ln 个文件</translation>
    </message>
    <message>
        <source>Restore the %Ln file(s) replaced with links</source>
        <translation>恢复被替换为链接的 %Ln 个文件</translation>
    </message>
    <message>
        <source>Put back the %Ln file(s) of the last action</source>
        <translation>恢复上次操作的 %Ln 个文件</translation>
    </message>
    <message>
        <source> (at {time})</source>
        <translation>（{time}）</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>put back</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>%Ln done</source>
        <translation>%Ln 个完成</translation>
    </message>
    <message>
        <source>%Ln skipped</source>
        <translation>%Ln 个跳过</translation>
    </message>
    <message>
        <source>%Ln failed</source>
        <translation>%Ln 个失败</translation>
    </message>
    <message>
        <source>%Ln put back</source>
        <translation>%Ln 个已恢复</translation>
    </message>
    <message>
        <source>%Ln left alone</source>
        <translation>%Ln 个不处理</translation>
    </message>
    <message>
        <source>left alone: its bytes differ from the kept file</source>
        <translation>不处理：其内容与保留的文件不同</translation>
    </message>
    <message>
        <source>in %Ln group(s)</source>
        <translation>（共 %Ln 组）</translation>
    </message>
    <message>
        <source>Send {what} ({size}) {where} to the trash. Undo can bring them back while the trash is kept.</source>
        <translation>将 {what}（{size}）{where}移到回收站。只要回收站未清空，就可以撤销恢复。</translation>
    </message>
    <message>
        <source>Move {what} ({size}) {where} to {folder}, keeping their paths relative to {root}. Nothing is overwritten: a taken name gets a “ (1)” suffix.</source>
        <translation>将 {what}（{size}）{where}移动到 {folder}，保留相对于 {root} 的路径。不会覆盖任何文件：重名时会加上“ (1)”后缀。</translation>
    </message>
    <message>
        <source>PERMANENTLY DELETE {what} ({size}) {where}. This cannot be undone.</source>
        <translation>永久删除 {what}（{size}）{where}。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Replace {what} ({size}) {where} with links to the file each group keeps, only where the bytes are exactly the same.</source>
        <translation>将 {what}（{size}）{where}替换为指向各组保留文件的链接，仅限字节完全相同的文件。</translation>
    </message>
    <message>
        <source>%Ln of them differ from the kept file and will be left alone:</source>
        <translation>其中 %Ln 个文件与保留文件不同，将保持不变：</translation>
    </message>
    <message>
        <source>%Ln file(s) kept.</source>
        <translation>保留 %Ln 个文件。</translation>
    </message>
    <message>
        <source>%Ln of the files are in groups the filter hides.</source>
        <translation>其中 %Ln 个文件位于被筛选隐藏的组中。</translation>
    </message>
</context>
</TS>
